// DeviceTreeGrower (gpu_hist/grower.h): TreeGrower's steps with the data on the device.
#ifdef RINGBOOST_USE_CUDA

#include "tree/gpu_hist/grower.h"

#include <algorithm>
#include <utility>

#include "common/error.h"
#include "common/logging.h"

namespace ringboost {

std::shared_ptr<HistogramPool::Buffer> HistogramPool::Acquire(std::size_t n, std::size_t bins) {
  const std::size_t want = std::max<std::size_t>(n * bins, 1);
  // The smallest free buffer that holds `want`, else a new one.
  auto best = free_.end();
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if ((*it)->capacity() >= want &&
        (best == free_.end() || (*it)->capacity() < (*best)->capacity()))
      best = it;
  }
  std::unique_ptr<Buffer> buffer;
  if (best != free_.end()) {
    buffer = std::move(*best);
    free_.erase(best);
  } else {
    buffer = std::make_unique<Buffer>();
  }
  buffer->Resize(want);
  return std::shared_ptr<Buffer>(buffer.release(), [this](Buffer* b) { free_.emplace_back(b); });
}

DeviceTreeGrower::DeviceTreeGrower(const DeviceMatrix* matrix, const HistogramCuts* cuts,
                                   const TreeParams& params, rabit::Communicator* comm,
                                   bool low_bit)
    : matrix_(matrix),
      cuts_(cuts),
      params_(params),
      comm_(comm),
      sync_(cuts, params.hist_sync, comm, low_bit),
      hist_builder_(matrix, *cuts),
      partitioner_(matrix->shape().num_rows),
      cat_bins_(CategoricalBinsOf(*cuts)),
      nodes_(params),
      sync_phases_(params.sync_phases) {
  if (!cat_bins_.empty()) cat_gather_ = std::make_unique<DeviceBinGather>(cat_bins_.bins);
}

void DeviceTreeGrower::SetConstraints(TreeConstraints constraints) {
  constraints_ = std::move(constraints);
  nodes_.SetConstraints(&constraints_);
  if (evaluator_ != nullptr) evaluator_->SetMonotone(nodes_.monotone());
}

namespace {
// The most nodes a tree of `params` can have.
uint64_t MaxTreeNodes(const TreeParams& params) {
  uint64_t bound = ~uint64_t{0};
  if (params.max_depth > 0 && params.max_depth < 40) bound = (uint64_t{2} << params.max_depth) - 1;
  if (params.max_leaves > 0) {
    bound = std::min<uint64_t>(bound, 2 * static_cast<uint64_t>(params.max_leaves) - 1);
  }
  return bound;
}
}  // namespace

void DeviceTreeGrower::EndPhase() {
  if (sync_phases_) DeviceSynchronize();
}

// Several workers: the histograms go through host memory to the collective and back (with
// reduce_scatter the bins of other workers' blocks come back as this worker's partial sums, which
// no split reads: evaluation takes the worker's own features, the categorical gather copies them
// but merges only its own, and a subtraction of them only makes more such bins).
void DeviceTreeGrower::SyncHistograms(HistogramPool::Buffer* hists,
                                      const std::vector<uint64_t>& rows) {
  if (comm_->WorldSize() == 1 || rows.empty()) return;
  const std::size_t n_bins = cuts_->TotalBins();
  std::vector<GradientSum> h_all(rows.size() * n_bins);
  detail::CopyToHost(h_all.data(), hists->data(), h_all.size() * sizeof(GradientSum));
  std::vector<GradientSum*> cells;
  for (std::size_t k = 0; k < rows.size(); ++k) cells.push_back(h_all.data() + k * n_bins);
  sync_.Sync(cells, rows);
  detail::CopyToDevice(hists->data(), h_all.data(), h_all.size() * sizeof(GradientSum));
}

void DeviceTreeGrower::EvaluateNodes(const std::vector<int>& nids) {
  if (nids.empty()) return;
  const auto start = PhaseTimer::Clock::now();
  std::vector<DeviceSplitNode> inputs;
  // Each node's features: numerical ones to the device, categorical ones to the host.
  std::vector<std::vector<uint32_t>> features, cat_features(nids.size());
  bool any_cat = false;
  const HistogramPool::Buffer* buffer = nodes_[nids[0]].hist.get();
  for (std::size_t i = 0; i < nids.size(); ++i) {
    const int nid = nids[i];
    NodeState& n = nodes_[nid];
    RB_CHECK(n.hist.get() == buffer);
    // column sampling, then the interaction constraints
    features.push_back(*nodes_.FilterFeatures(nid, sampler_->ForNode(nid, n.depth)));
    if (sync_.scatters()) features.back() = sync_.Owned(features.back());
    if (!cat_bins_.empty()) {
      std::vector<uint32_t>& all = features.back();
      for (uint32_t f : all) {
        if (cuts_->IsCat(f)) cat_features[i].push_back(f);
      }
      all.erase(std::remove_if(all.begin(), all.end(), [&](uint32_t f) { return cuts_->IsCat(f); }),
                all.end());
      any_cat |= !cat_features[i].empty();
    }
    inputs.push_back(
        DeviceSplitNode{n.slot * cuts_->TotalBins(), n.sum.g, n.sum.h, n.gain, n.bounds});
  }
  std::vector<SplitCandidate> best = evaluator_->Evaluate(buffer->data(), inputs, features);
  if (any_cat) {
    std::vector<uint64_t> offsets;
    for (const DeviceSplitNode& n : inputs) offsets.push_back(n.hist_offset);
    const std::vector<GradientSum> gathered = cat_gather_->Gather(buffer->data(), offsets);
    MergeCategoricalSplits(*cuts_, *cat_splitter_, cat_bins_, gathered, inputs, cat_features,
                           &best);
  }
  sync_.AgreeOnSplits(&best);
  for (std::size_t i = 0; i < nids.size(); ++i) nodes_[nids[i]].split = best[i];
  timer_.Add("device evaluate", start);
}

void DeviceTreeGrower::PartitionRows(const std::vector<Expansion>& expansions) {
  const auto start = PhaseTimer::Clock::now();
  std::vector<DeviceSplitTask> moved, recorded;
  for (const Expansion& e : expansions) {
    const SplitCandidate& s = nodes_[e.nid].split;
    DeviceSplitTask task{
        e.nid,
        e.left,
        e.right,
        s.feature,
        s.split_bin,
        s.default_left,
        s.is_cat ? PackLeftBits(CategoryLeftBins(*cuts_, s)) : std::vector<uint32_t>{}};
    (keep_leaf_rows_ || nodes_.ChildrenMaySplit(e) ? moved : recorded).push_back(std::move(task));
  }
  partitioner_.RecordSplits(recorded);
  partitioner_.Partition(*matrix_, moved);
  timer_.Add("device partition", start);
}

// The smaller child of every expansion whose children may split into slots [0, k) of a new
// buffer, siblings into [k, 2k), all in one launch of each kernel; returns those children.
std::vector<int> DeviceTreeGrower::BuildChildren(const std::vector<Expansion>& expansions) {
  std::vector<Expansion> splitting;
  std::vector<uint64_t> counts;
  for (const Expansion& e : expansions) {
    if (!nodes_.ChildrenMaySplit(e)) {
      nodes_[e.nid].hist.reset();  // children are leaves at the depth limit
      continue;
    }
    splitting.push_back(e);
    counts.push_back(partitioner_.NodeRange(e.left).size());
    counts.push_back(partitioner_.NodeRange(e.right).size());
  }
  if (splitting.empty()) return {};
  comm_->Allreduce(Span<uint64_t>(counts), rabit::Op::kSum);
  std::vector<int> children;
  std::vector<Expansion> built;  // (parent, built child, sibling)
  std::vector<HistNode> nodes;
  for (std::size_t i = 0; i < splitting.size(); ++i) {
    const Expansion& e = splitting[i];
    const Expansion b = NodeBook<NodeState>::BuiltChild(e, counts[2 * i], counts[2 * i + 1]);
    nodes.push_back(HistNode{partitioner_.d_node_rows(b.left),
                             partitioner_.NodeRange(b.left).size(),
                             static_cast<uint32_t>(built.size())});
    built.push_back(b);
    children.push_back(e.left);
    children.push_back(e.right);
  }
  const auto start = PhaseTimer::Clock::now();
  const std::size_t k = built.size(), n_bins = cuts_->TotalBins();
  std::shared_ptr<HistogramPool::Buffer> level = pool_.Acquire(2 * k, n_bins);
  hist_builder_.Build(grad_, nodes, k, level->data());
  std::vector<uint64_t> built_rows;  // the smaller child's rows over all workers
  for (std::size_t i = 0; i < k; ++i) {
    built_rows.push_back(std::min(counts[2 * i], counts[2 * i + 1]));
  }
  SyncHistograms(level.get(), built_rows);
  std::vector<SubtractTask> subtract;
  for (std::size_t i = 0; i < k; ++i) {
    const NodeState& parent = nodes_[built[i].nid];
    subtract.push_back(SubtractTask{parent.hist->data() + parent.slot * n_bins,
                                    level->data() + i * n_bins, level->data() + (k + i) * n_bins});
    nodes_[built[i].left].hist = level;
    nodes_[built[i].left].slot = i;
    nodes_[built[i].right].hist = level;
    nodes_[built[i].right].slot = k + i;
  }
  d_subtract_.CopyFrom(subtract);
  DeviceHistogramBuilder::SubtractMany(d_subtract_.data(), k, n_bins);
  // The parents' buffers go back to the pool: work queued later on the stream may reuse them
  // only after these kernels, in stream order.
  for (const Expansion& b : built) nodes_[b.nid].hist.reset();
  EndPhase();
  timer_.Add("device histograms", start);
  return children;
}

RegTree DeviceTreeGrower::Grow(const std::vector<GradientSum>& gpair,
                               const GradientQuantizer& quantizer, uint64_t tree_key) {
  RB_CHECK(gpair.size() == matrix_->shape().num_rows);
  d_host_gpair_.CopyFrom(gpair);
  GradientSum sum;
  for (const GradientSum& g : gpair) sum += g;
  DeviceHistGradients grad;
  grad.exact = d_host_gpair_.data();
  return Grow(grad, sum, quantizer, tree_key);
}

RegTree DeviceTreeGrower::Grow(const DeviceHistGradients& grad, GradientSum local_sum,
                               const GradientQuantizer& quantizer, uint64_t tree_key) {
  grad_ = grad;
  // Dense data: the leaf values (and the low-bit refit, where the tree fits WalkLeafSums) come
  // from walking the rows down the tree, so no leaf's rows are needed.
  refit_by_walk_ =
      matrix_->shape().dense &&
      MaxTreeNodes(params_) <= static_cast<uint64_t>(DevicePartitioner::kMaxWalkSumNodes);
  keep_leaf_rows_ = !matrix_->shape().dense || (grad.low_bit != nullptr && !refit_by_walk_);
  if (evaluator_ == nullptr) {
    evaluator_ = std::make_unique<DeviceSplitEvaluator>(matrix_, params_.split, quantizer);
    evaluator_->SetMonotone(nodes_.monotone());
  } else {
    evaluator_->SetQuantizer(quantizer);
  }
  partitioner_.Reset();
  if (!cat_bins_.empty()) {
    cat_splitter_ = std::make_unique<CategoricalSplitter>(cuts_, params_.split, &quantizer);
    cat_splitter_->SetMonotone(nodes_.monotone());
  }
  sampler_ = std::make_unique<ColumnSampler>(cuts_->NumFeatures(), params_, tree_key);
  int64_t sum[2] = {local_sum.g, local_sum.h};
  comm_->Allreduce(Span<int64_t>(sum, 2), rabit::Op::kSum);
  RegTree tree;
  nodes_.Reset(&quantizer);
  nodes_.InitChild(0, -1, GradientSum{sum[0], sum[1]}, &tree);
  const auto start = PhaseTimer::Clock::now();
  nodes_[0].hist = pool_.Acquire(1, cuts_->TotalBins());
  hist_builder_.Build(grad_, {HistNode{nullptr, matrix_->shape().num_rows, 0}}, 1,
                      nodes_[0].hist->data());
  if (comm_->WorldSize() > 1) {
    SyncHistograms(nodes_[0].hist.get(),
                   {comm_->AllreduceValue<uint64_t>(matrix_->shape().num_rows, rabit::Op::kSum)});
  }
  EndPhase();
  timer_.Add("device histograms", start);
  EvaluateNodes({0});
  nodes_.Grow(
      &tree,
      [&](const std::vector<Expansion>& expansions) {
        PartitionRows(expansions);
        const std::vector<int> children = BuildChildren(expansions);
        EvaluateNodes(children);
        return children;
      },
      [&](int nid) { nodes_[nid].hist.reset(); });
  boxes_ = nodes_.Boxes();
  nodes_.Reset(nullptr);
  cat_splitter_.reset();  // it points at this tree's quantizer
  return tree;
}

void DeviceTreeGrower::RefitLeaves(const GradientSum* d_gpair, const GradientQuantizer& quantizer,
                                   RegTree* tree) {
  const auto start = PhaseTimer::Clock::now();
  std::vector<int> leaves;
  for (int nid = 0; nid < tree->NumNodes(); ++nid) {
    if ((*tree)[nid].IsLeaf()) leaves.push_back(nid);
  }
  std::vector<int64_t> sums(2 * static_cast<std::size_t>(tree->NumNodes()), 0);
  if (keep_leaf_rows_) {
    const std::vector<GradientSum> leaf_sums = partitioner_.LeafSums(leaves, d_gpair);
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      sums[2 * leaves[k]] = leaf_sums[k].g;
      sums[2 * leaves[k] + 1] = leaf_sums[k].h;
    }
  } else {
    RB_CHECK(refit_by_walk_);
    const std::vector<GradientSum> node_sums =
        partitioner_.WalkLeafSums(*matrix_, d_gpair, tree->NumNodes());
    for (int nid : leaves) {
      sums[2 * nid] = node_sums[nid].g;
      sums[2 * nid + 1] = node_sums[nid].h;
    }
  }
  comm_->Allreduce(Span<int64_t>(sums), rabit::Op::kSum);
  RefitLeafValues(&sums, quantizer, params_.split, boxes_, tree);
  EndPhase();
  timer_.Add("device refit leaves", start);
}

void DeviceTreeGrower::UpdatePredictions(const RegTree& tree, float* d_preds, int stride,
                                         int group) {
  const auto start = PhaseTimer::Clock::now();
  std::vector<int> leaves;
  std::vector<float> values;
  for (int nid = 0; nid < tree.NumNodes(); ++nid) {
    if (!tree[nid].IsLeaf()) continue;
    leaves.push_back(nid);
    values.push_back(tree[nid].leaf_value);
  }
  partitioner_.AddLeafValues(*matrix_, leaves, values, d_preds, stride, group);
  EndPhase();
  timer_.Add("device predictions", start);
}

}  // namespace ringboost

#endif  // RINGBOOST_USE_CUDA
