// DeviceTreeGrower (device_grower.h): TreeGrower's steps with the data on the device.
#ifdef RINGBOOST_USE_CUDA

#include "tree/device_grower.h"

#include "common/error.h"

namespace ringboost {

DeviceTreeGrower::DeviceTreeGrower(const DeviceMatrix* matrix, const HistogramCuts* cuts,
                                   const Params& params, const SplitParams& split_params,
                                   rabit::Communicator* comm)
    : matrix_(matrix),
      cuts_(cuts),
      params_(params),
      split_params_(split_params),
      comm_(comm),
      hist_builder_(matrix, *cuts),
      nodes_(params, split_params) {}

// Several workers: the histograms go through host memory to the collective and back.
void DeviceTreeGrower::AllreduceHistograms(DeviceBuffer<GradientSum>* hists, std::size_t count) {
  if (comm_->WorldSize() == 1 || count == 0) return;
  std::vector<GradientSum> h_all = hists->ToHost();
  h_all.resize(count * cuts_->TotalBins());
  comm_->Allreduce(Span<int64_t>(reinterpret_cast<int64_t*>(h_all.data()), 2 * h_all.size()),
                   rabit::Op::kSum);
  detail::CopyToDevice(hists->data(), h_all.data(), h_all.size() * sizeof(GradientSum));
}

void DeviceTreeGrower::EvaluateNodes(const std::vector<int>& nids) {
  if (nids.empty()) return;
  std::vector<DeviceSplitNode> inputs;
  std::vector<std::vector<uint32_t>> features;
  const DeviceBuffer<GradientSum>* buffer = nodes_[nids[0]].hist.get();
  for (int nid : nids) {
    NodeState& n = nodes_[nid];
    RB_CHECK(n.hist.get() == buffer);
    features.push_back(sampler_->ForNode(nid, n.depth));
    inputs.push_back(DeviceSplitNode{n.slot * cuts_->TotalBins(), n.sum.g, n.sum.h, n.gain});
  }
  const std::vector<SplitCandidate> best = evaluator_->Evaluate(buffer->data(), inputs, features);
  for (std::size_t i = 0; i < nids.size(); ++i) nodes_[nids[i]].split = best[i];
}

void DeviceTreeGrower::PartitionRows(const std::vector<Expansion>& expansions) {
  std::vector<DeviceSplitTask> tasks;
  for (const Expansion& e : expansions) {
    const SplitCandidate& s = nodes_[e.nid].split;
    tasks.push_back(
        DeviceSplitTask{e.nid, e.left, e.right, s.feature, s.split_bin, s.default_left});
  }
  partitioner_->Partition(*matrix_, tasks);
}

// The smaller child of every expansion into slots [0, k) of a new buffer, siblings into
// [k, 2k); returns the children that may still be split.
std::vector<int> DeviceTreeGrower::BuildChildren(const std::vector<Expansion>& expansions) {
  std::vector<uint64_t> counts;
  for (const Expansion& e : expansions) {
    counts.push_back(partitioner_->NodeRange(e.left).size());
    counts.push_back(partitioner_->NodeRange(e.right).size());
  }
  if (!counts.empty()) comm_->Allreduce(Span<uint64_t>(counts), rabit::Op::kSum);
  std::vector<int> children;
  std::vector<Expansion> built;  // (parent, built child, sibling)
  std::vector<RowSegment> segments;
  for (std::size_t i = 0; i < expansions.size(); ++i) {
    const Expansion& e = expansions[i];
    if (params_.max_depth > 0 && nodes_[e.left].depth >= params_.max_depth) {
      nodes_[e.nid].hist.reset();  // children are leaves at the depth limit
      continue;
    }
    const bool left_smaller = counts[2 * i] <= counts[2 * i + 1];
    const int small = left_smaller ? e.left : e.right;
    built.push_back(Expansion{e.nid, small, left_smaller ? e.right : e.left});
    const RowPartitioner::Range r = partitioner_->NodeRange(small);
    // Positions in the buffer that holds the child's rows: d_node_rows(small) - begin is its base.
    segments.push_back(RowSegment{0, r.size()});
    children.push_back(e.left);
    children.push_back(e.right);
  }
  if (built.empty()) return children;
  const std::size_t k = built.size(), n_bins = cuts_->TotalBins();
  auto level = std::make_shared<DeviceBuffer<GradientSum>>(2 * k * n_bins);
  // The children's rows may lie in either buffer: build them one segment (node) at a time.
  for (std::size_t i = 0; i < k; ++i) {
    hist_builder_.Build(d_gpair_.data(), partitioner_->d_node_rows(built[i].left), {segments[i]},
                        level->data() + i * n_bins);
  }
  AllreduceHistograms(level.get(), k);
  for (std::size_t i = 0; i < k; ++i) {
    const NodeState& parent = nodes_[built[i].nid];
    DeviceHistogramBuilder::Subtract(parent.hist->data() + parent.slot * n_bins,
                                     level->data() + i * n_bins, level->data() + (k + i) * n_bins,
                                     n_bins);
    nodes_[built[i].left].hist = level;
    nodes_[built[i].left].slot = i;
    nodes_[built[i].right].hist = level;
    nodes_[built[i].right].slot = k + i;
  }
  for (const Expansion& b : built) nodes_[b.nid].hist.reset();
  return children;
}

RegTree DeviceTreeGrower::Grow(const std::vector<GradientSum>& gpair,
                               const GradientQuantizer& quantizer, uint64_t tree_key) {
  RB_CHECK(gpair.size() == matrix_->shape().num_rows);
  quantizer_ = &quantizer;
  evaluator_ = std::make_unique<DeviceSplitEvaluator>(matrix_, split_params_, quantizer);
  partitioner_ = std::make_unique<DevicePartitioner>(gpair.size());
  sampler_ = std::make_unique<ColumnSampler>(cuts_->NumFeatures(), params_, tree_key);
  d_gpair_.CopyFrom(gpair);
  int64_t sum[2] = {0, 0};
  for (const GradientSum& g : gpair) {
    sum[0] += g.g;
    sum[1] += g.h;
  }
  comm_->Allreduce(Span<int64_t>(sum, 2), rabit::Op::kSum);
  RegTree tree;
  nodes_.Reset(&quantizer);
  nodes_.InitChild(0, -1, GradientSum{sum[0], sum[1]}, &tree);
  nodes_[0].hist = std::make_shared<DeviceBuffer<GradientSum>>(cuts_->TotalBins());
  hist_builder_.Build(d_gpair_.data(), partitioner_->d_node_rows(0),
                      {RowSegment{0, partitioner_->NodeRange(0).size()}}, nodes_[0].hist->data());
  AllreduceHistograms(nodes_[0].hist.get(), 1);
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
  nodes_.Reset(nullptr);
  return tree;
}

void DeviceTreeGrower::UpdatePredictions(const RegTree& tree, float* d_preds, int stride,
                                         int group) {
  std::vector<int> leaves;
  std::vector<float> values;
  for (int nid = 0; nid < tree.NumNodes(); ++nid) {
    if (!tree[nid].IsLeaf()) continue;
    leaves.push_back(nid);
    values.push_back(tree[nid].leaf_value);
  }
  partitioner_->AddLeafValues(leaves, values, d_preds, stride, group);
}

}  // namespace ringboost

#endif  // RINGBOOST_USE_CUDA
