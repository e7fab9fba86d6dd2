#include "tree/hist/grower.h"

#include <omp.h>

#include <algorithm>
#include <utility>

#include "common/error.h"
#include "tree/column_sampler.h"
#include "tree/hist/split_rule.h"

namespace ringboost {
namespace {
// A leaf's rows ascend with gaps of a line or more below the first levels: what the refit and
// the predictions' update read or write at a row is prefetched this many rows ahead.
constexpr uint64_t kLeafRowsAhead = 16;
}  // namespace

TreeGrower::TreeGrower(const BinnedMatrix* matrix, const HistogramCuts* cuts,
                       const TreeParams& params, rabit::Communicator* comm, int nthread,
                       bool low_bit)
    : matrix_(matrix),
      cuts_(cuts),
      params_(params),
      comm_(comm),
      nthread_(nthread),
      hist_builder_(matrix, cuts, nthread, low_bit),
      sync_(cuts, params.hist_sync, comm, low_bit),
      nodes_(params),
      low_bit_(low_bit) {}

void TreeGrower::SetConstraints(TreeConstraints constraints) {
  constraints_ = std::move(constraints);
  nodes_.SetConstraints(&constraints_);
}

ColumnSampler::FeatureSet TreeGrower::NodeFeatures(int nid) {
  return nodes_.FilterFeatures(nid, sampler_->ForNode(nid, nodes_[nid].depth));
}

void TreeGrower::InitRoot(const std::vector<GradientSum>& gpair, GradientSum local_sum,
                          RegTree* tree) {
  int64_t sum[2] = {local_sum.g, local_sum.h};
  comm_->Allreduce(Span<int64_t>(sum, 2), rabit::Op::kSum);
  nodes_.InitChild(0, -1, GradientSum{sum[0], sum[1]}, tree);
  if (columnwise_ != nullptr) columnwise_->NewGradients();  // a new tree: new gradients
  if (wide_) {
    if (!EvaluateColumnwise(gpair, {0})) BuildAndEvaluateWide(gpair, 0);
    return;
  }
  auto start = PhaseTimer::Clock::now();
  std::vector<Histogram*> out{&nodes_[0].hist};
  hist_builder_.Build(gpair, *partitioner_, {0}, out);
  if (comm_->WorldSize() > 1) {
    sync_.Sync({nodes_[0].hist.data()},
               {comm_->AllreduceValue<uint64_t>(matrix_->NumRows(), rabit::Op::kSum)});
  }
  timer_.Add("histograms", start);
  start = PhaseTimer::Clock::now();
  evaluator_->MarkCompleteFeatures(nodes_[0].hist, nodes_[0].sum);
  EvaluateNodes({0});
  timer_.Add("evaluate", start);
}

// Only the chunks some worker touched can be non-zero: the workers agree on the union of their
// touched chunks (a bitmask, or-reduced) and reduce those chunks alone, so a deep node's few
// entries cost a few chunks rather than the whole histogram (41 MB for 10,000 x 256 bins).
void TreeGrower::AllreduceWide() {
  constexpr uint32_t kShift = HistogramBuilder::kChunkShift;
  const std::vector<uint8_t>& touched = hist_builder_.wide_touched();
  std::vector<uint64_t> mask((touched.size() + 63) / 64, 0);
  for (std::size_t c = 0; c < touched.size(); ++c) {
    if (touched[c]) mask[c >> 6] |= uint64_t{1} << (c & 63);
  }
  comm_->Allreduce(Span<uint64_t>(mask), rabit::Op::kBitOr);
  std::vector<uint32_t> chunks;
  for (std::size_t w = 0; w < mask.size(); ++w) {
    for (uint64_t bits = mask[w]; bits != 0; bits &= bits - 1) {
      chunks.push_back(static_cast<uint32_t>(w * 64 + __builtin_ctzll(bits)));
    }
  }
  Histogram& hist = hist_builder_.wide_hist();
  const std::size_t n_bins = hist.size();
  auto for_each_bin = [&](auto&& fn) {
    for (uint32_t c : chunks) {
      const std::size_t end = std::min(n_bins, (std::size_t{c} + 1) << kShift);
      for (std::size_t b = std::size_t{c} << kShift; b < end; ++b) fn(hist[b]);
    }
  };
  std::vector<int64_t> buf;
  for_each_bin([&](const GradientSum& s) {
    buf.push_back(s.g);
    buf.push_back(s.h);
  });
  comm_->Allreduce(Span<int64_t>(buf), rabit::Op::kSum);
  std::size_t at = 0;
  for_each_bin([&](GradientSum& s) {
    s.g = buf[at++];
    s.h = buf[at++];
  });
  hist_builder_.SetWideChunks(std::move(chunks));
}

// A matrix built by column makes its CSR the first time a row-wise step needs it.
void TreeGrower::EnsureMatrixRows() {
  if (!matrix_->rows_pending()) return;
  const auto start = PhaseTimer::Clock::now();
  matrix_->EnsureRows(*cuts_, nthread_);
  timer_.Add("rows from columns", start);
}

void TreeGrower::BuildAndEvaluateWide(const std::vector<GradientSum>& gpair, int nid) {
  EnsureMatrixRows();
  auto start = PhaseTimer::Clock::now();
  hist_builder_.BuildWide(gpair, *partitioner_, nid);
  timer_.Add("histograms", start);
  start = PhaseTimer::Clock::now();
  if (comm_->WorldSize() > 1) AllreduceWide();
  // Only features whose bins lie in a touched chunk can split: the node's rows miss the others.
  NodeState& n = nodes_[nid];
  const std::vector<uint8_t>& touched = hist_builder_.wide_touched();
  constexpr uint32_t kShift = HistogramBuilder::kChunkShift;
  const ColumnSampler::FeatureSet sampled = NodeFeatures(nid);
  std::vector<uint32_t> features;
  for (uint32_t f : *sampled) {
    const uint32_t first = cuts_->ptr[f] >> kShift, last = (cuts_->ptr[f + 1] - 1) >> kShift;
    for (uint32_t c = first; c <= last; ++c) {
      if (touched[c]) {
        features.push_back(f);
        break;
      }
    }
  }
  NodeToEvaluate input{
      &hist_builder_.wide_hist(), n.sum, n.gain, &features, touched.data(), kShift, n.bounds};
  n.split = evaluator_->Evaluate({input}, nthread_)[0];
  timer_.Add("evaluate", start);
}

std::vector<int> TreeGrower::ExpandChildren(const std::vector<GradientSum>& gpair,
                                            const std::vector<Expansion>& expansions) {
  if (!wide_) {
    auto start = PhaseTimer::Clock::now();
    std::vector<int> children = BuildChildren(gpair, expansions);
    timer_.Add("histograms", start);
    start = PhaseTimer::Clock::now();
    EvaluateNodes(children);
    timer_.Add("evaluate", start);
    return children;
  }
  std::vector<int> children;
  for (const Expansion& e : expansions) {
    if (!nodes_.ChildrenMaySplit(e)) continue;
    children.push_back(e.left);
    children.push_back(e.right);
  }
  if (!EvaluateColumnwise(gpair, children)) {
    for (int child : children) BuildAndEvaluateWide(gpair, child);
  }
  return children;
}

bool TreeGrower::ReadsColumns(const HistogramCuts& cuts, int world_size) {
  return world_size == 1 && cuts.is_cat.empty() &&
         cuts.TotalBins() * sizeof(GradientSum) > kWideHistogramBytes;
}

bool TreeGrower::EvaluateColumnwise(const std::vector<GradientSum>& gpair,
                                    const std::vector<int>& nids) {
  if (!columnwise_on_ || nids.empty() || comm_->WorldSize() > 1 || !cuts_->is_cat.empty() ||
      !ColumnwiseEvaluator::Supports(*matrix_, *cuts_)) {
    return false;
  }
  // Every entry of the matrix is read once: worth it when most rows are in these nodes.
  uint64_t rows = 0;
  for (int nid : nids) rows += partitioner_->NodeRange(nid).size();
  if (rows * 4 < matrix_->NumRows()) return false;
  if (columnwise_ == nullptr) {
    const auto start = PhaseTimer::Clock::now();
    columnwise_ = std::make_unique<ColumnwiseEvaluator>(*matrix_, *cuts_, nthread_);
    timer_.Add("columnwise copy", start);
  }
  if (!columnwise_->Fits(nids.size())) return false;
  const auto start = PhaseTimer::Clock::now();
  // A node allowed every feature passes no list; the nodes of a level sampled alike share one
  // (ColumnSampler::ForNode), dropped once the level is evaluated.
  std::vector<ColumnwiseEvaluator::Node> nodes;
  for (int nid : nids) {
    NodeState& n = nodes_[nid];
    n.features = NodeFeatures(nid);
    const bool all = n.features->size() == cuts_->NumFeatures();
    nodes.push_back({nid, n.sum, n.gain, all ? nullptr : n.features.get(), n.bounds});
  }
  const std::vector<SplitCandidate> best =
      columnwise_->Evaluate(gpair, *partitioner_, nodes, *evaluator_);
  for (std::size_t i = 0; i < nids.size(); ++i) {
    nodes_[nids[i]].split = best[i];
    nodes_[nids[i]].features.reset();
  }
  timer_.Add("histograms + evaluate (by column)", start);
  return true;
}

// With reduce_scatter each worker evaluates its block's features of each node and the workers
// agree on the best (histogram_sync.h).
void TreeGrower::EvaluateNodes(const std::vector<int>& nids) {
  std::vector<NodeToEvaluate> inputs;
  for (int nid : nids) {
    NodeState& n = nodes_[nid];
    n.features = NodeFeatures(nid);
    if (sync_.scatters()) {
      n.features = std::make_shared<const std::vector<uint32_t>>(sync_.Owned(*n.features));
    }
    inputs.push_back(
        NodeToEvaluate{&n.hist, n.sum, n.gain, n.features.get(), nullptr, 0, n.bounds});
  }
  std::vector<SplitCandidate> best = evaluator_->Evaluate(inputs, nthread_);
  sync_.AgreeOnSplits(&best);
  for (std::size_t i = 0; i < nids.size(); ++i) {
    nodes_[nids[i]].split = best[i];
    nodes_[nids[i]].features.reset();
  }
}

// Sparse rows find their split feature by a search in the row; with the column-major copy at
// hand, reading the split features' columns once costs less unless those columns hold many
// times the nodes' rows in entries. There an entry costs about a fifteenth of a row's search
// (bench sparse set, 1M rows of ~40 entries: the last level of a depth-8 tree, its columns
// holding 2.4M entries, took 4.6 ms by column and 34 ms by search), so the columns serve up to
// 8 entries a row.
bool TreeGrower::PartitionByColumns(const std::vector<Expansion>& expansions,
                                    const std::vector<RowPartitioner::SplitTask>& tasks) {
  if (columnwise_ == nullptr || expansions.empty() ||
      expansions.size() > ColumnwiseEvaluator::kMaxDirections) {
    return false;  // (a level of more splits is evaluated row-wise too: Fits)
  }
  std::vector<ColumnwiseEvaluator::Split> splits;
  uint64_t rows = 0;
  for (const Expansion& e : expansions) {
    const SplitCandidate& c = nodes_[e.nid].split;
    splits.push_back({e.nid, c.feature, c.split_bin, c.default_left});
    rows += partitioner_->NodeRange(e.nid).size();
  }
  if (columnwise_->ColumnEntries(splits) > 8 * rows) return false;
  columnwise_->Directions(splits, *partitioner_, &goes_left_);
  const uint8_t* left = goes_left_.data();
  partitioner_->Partition(
      tasks, [left](std::size_t, uint32_t row) { return left[row] != 0; }, nthread_);
  return true;
}

void TreeGrower::PartitionRows(const std::vector<Expansion>& expansions) {
  const auto start = PhaseTimer::Clock::now();
  std::vector<RowPartitioner::SplitTask> tasks;
  for (const Expansion& e : expansions) tasks.push_back({e.nid, e.left, e.right});
  if (PartitionByColumns(expansions, tasks)) {
    timer_.Add("partition", start);
    return;
  }
  EnsureMatrixRows();
  std::vector<SplitRule> rules;
  for (const Expansion& e : expansions) rules.emplace_back(*matrix_, *cuts_, nodes_[e.nid].split);
  const SplitRule* r = rules.data();
  if (matrix_->layout() == BinnedMatrix::Layout::kSparse) {
    partitioner_->Partition(
        tasks, [r](std::size_t t, uint32_t row) { return r[t].Sparse(row); }, nthread_);
  } else if (matrix_->BinBytes() == 1) {
    partitioner_->PartitionBlocks(
        tasks,
        [r](std::size_t t, const uint32_t* rows, uint64_t n, uint8_t* side) {
          return r[t].DecideDense(r[t].bins8, rows, n, side);
        },
        nthread_);
  } else {
    partitioner_->PartitionBlocks(
        tasks,
        [r](std::size_t t, const uint32_t* rows, uint64_t n, uint8_t* side) {
          return r[t].DecideDense(r[t].bins16, rows, n, side);
        },
        nthread_);
  }
  timer_.Add("partition", start);
}

// Builds the histograms of both children of every expansion (smaller one directly, sibling by
// subtraction), frees the parents', and returns the children that may still be split.
std::vector<int> TreeGrower::BuildChildren(const std::vector<GradientSum>& gpair,
                                           const std::vector<Expansion>& expansions) {
  std::vector<uint64_t> counts;
  for (const Expansion& e : expansions) {
    counts.push_back(partitioner_->NodeRange(e.left).size());
    counts.push_back(partitioner_->NodeRange(e.right).size());
  }
  if (!counts.empty()) comm_->Allreduce(Span<uint64_t>(counts), rabit::Op::kSum);
  std::vector<int> children, build_nids;
  std::vector<uint64_t> built_rows;  // over all workers
  std::vector<Expansion> built;      // (parent, built child, sibling)
  for (std::size_t i = 0; i < expansions.size(); ++i) {
    const Expansion& e = expansions[i];
    if (!nodes_.ChildrenMaySplit(e)) {
      nodes_[e.nid].hist = Histogram();  // children are leaves at the depth limit
      continue;
    }
    built.push_back(NodeBook<NodeState>::BuiltChild(e, counts[2 * i], counts[2 * i + 1]));
    build_nids.push_back(built.back().left);
    built_rows.push_back(std::min(counts[2 * i], counts[2 * i + 1]));  // the smaller is built
    children.push_back(e.left);
    children.push_back(e.right);
  }
  std::vector<Histogram*> out;
  for (int nid : build_nids) out.push_back(&nodes_[nid].hist);
  hist_builder_.Build(gpair, *partitioner_, build_nids, out, /*reuse_gradients=*/true);
  std::vector<GradientSum*> cells;
  for (Histogram* h : out) cells.push_back(h->data());
  sync_.Sync(cells, built_rows);
  // Each sibling takes its parent's histogram and subtracts the built child's in place.
  std::vector<const Histogram*> smaller;
  std::vector<Histogram*> siblings;
  for (const Expansion& b : built) {
    nodes_[b.right].hist = std::move(nodes_[b.nid].hist);
    nodes_[b.nid].hist = Histogram();
    smaller.push_back(&nodes_[b.left].hist);
    siblings.push_back(&nodes_[b.right].hist);
  }
  HistogramBuilder::Subtract(smaller, siblings, nthread_, sync_.FirstBin(), sync_.EndBin());
  return children;
}

RegTree TreeGrower::Grow(const std::vector<GradientSum>& gpair, const GradientQuantizer& quantizer,
                         uint64_t tree_key) {
  GradientSum sum;
  for (const GradientSum& g : gpair) sum += g;
  return Grow(gpair, sum, quantizer, tree_key);
}

RegTree TreeGrower::Grow(const std::vector<GradientSum>& gpair, GradientSum local_sum,
                         const GradientQuantizer& quantizer, uint64_t tree_key) {
  RB_CHECK(gpair.size() == matrix_->NumRows());
  quantizer_ = &quantizer;
  evaluator_ = std::make_unique<SplitEvaluator>(cuts_, params_.split, quantizer_);
  evaluator_->SetMonotone(nodes_.monotone());
  if (partitioner_ == nullptr) {
    partitioner_ = std::make_unique<RowPartitioner>(matrix_->NumRows());
  } else {
    partitioner_->Reset(nthread_);
  }
  sampler_ = std::make_unique<ColumnSampler>(cuts_->NumFeatures(), params_, tree_key);
  wide_ = cuts_->TotalBins() * sizeof(GradientSum) > wide_bytes_;
  if (!wide_) EnsureMatrixRows();
  RegTree tree;
  leaves_mapped_ = false;
  nodes_.Reset(&quantizer);
  InitRoot(gpair, local_sum, &tree);
  nodes_.Grow(
      &tree,
      [&](const std::vector<Expansion>& expansions) {
        PartitionRows(expansions);
        return ExpandChildren(gpair, expansions);
      },
      [&](int nid) { nodes_[nid].hist = Histogram(); });
  boxes_ = nodes_.Boxes();
  nodes_.Reset(nullptr);
  return tree;
}

bool TreeGrower::MapRowsToLeaves(const RegTree& tree) {
  if (leaves_mapped_) return true;
  leaf_nids_.clear();
  for (int nid = 0; nid < tree.NumNodes(); ++nid) {
    if (tree[nid].IsLeaf()) leaf_nids_.push_back(nid);
  }
  if (leaf_nids_.size() > 0xffff) return false;
  const auto start = PhaseTimer::Clock::now();
  row_leaf_.resize(matrix_->NumRows());
  uint16_t* out = row_leaf_.data();
#pragma omp parallel num_threads(nthread_)
  {
    const RowRange mine =
        RowPartitioner::ThreadRows(matrix_->NumRows(), omp_get_thread_num(), omp_get_num_threads());
    for (std::size_t i = 0; i < leaf_nids_.size(); ++i) {
      const auto [rows, size] = partitioner_->NodeRowsIn(leaf_nids_[i], mine);
      for (uint64_t j = 0; j < size; ++j) out[rows[j]] = static_cast<uint16_t>(i);
    }
  }
  leaves_mapped_ = true;
  timer_.Add("leaf map", start);
  return true;
}

void TreeGrower::RefitLeaves(const std::vector<GradPair>& gpair, int stride, int group,
                             const std::vector<uint8_t>& keep, const GradientQuantizer& quantizer,
                             RegTree* tree) {
  const bool mapped = MapRowsToLeaves(*tree);
  const auto start = PhaseTimer::Clock::now();
  const int n = tree->NumNodes();
  std::vector<int64_t> sums(2 * static_cast<std::size_t>(n), 0);
  if (mapped) {
    // The rows in order, each thread its own range into its own sums; integer sums, so the
    // result does not depend on the ranges.
    const std::size_t leaves = leaf_nids_.size();
    std::vector<GradientSum> partial(static_cast<std::size_t>(nthread_) * leaves);
#pragma omp parallel num_threads(nthread_)
    {
      const int t = omp_get_thread_num();
      const RowRange mine =
          RowPartitioner::ThreadRows(matrix_->NumRows(), t, omp_get_num_threads());
      GradientSum* acc = partial.data() + static_cast<std::size_t>(t) * leaves;
      const uint16_t* leaf = row_leaf_.data();
      for (uint64_t row = mine.begin; row < mine.end; ++row) {
        if (!keep.empty() && !keep[row]) continue;
        acc[leaf[row]] += quantizer.Quantize(gpair[row * stride + group]);
      }
    }
    for (std::size_t i = 0; i < leaves; ++i) {
      GradientSum total;
      for (int t = 0; t < nthread_; ++t) total += partial[t * leaves + i];
      sums[2 * static_cast<std::size_t>(leaf_nids_[i])] = total.g;
      sums[2 * static_cast<std::size_t>(leaf_nids_[i]) + 1] = total.h;
    }
  } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthread_)
    for (int nid = 0; nid < n; ++nid) {
      if (!(*tree)[nid].IsLeaf()) continue;
      const uint64_t size = partitioner_->NodeRange(nid).size();
      const uint32_t* rows = partitioner_->NodeRows(nid);
      int64_t g = 0, h = 0;
      for (uint64_t j = 0; j < size; ++j) {
        if (j + kLeafRowsAhead < size) {
          __builtin_prefetch(
              &gpair[static_cast<std::size_t>(rows[j + kLeafRowsAhead]) * stride + group]);
        }
        const uint32_t row = rows[j];
        if (!keep.empty() && !keep[row]) continue;
        const GradientSum q =
            quantizer.Quantize(gpair[static_cast<std::size_t>(row) * stride + group]);
        g += q.g;
        h += q.h;
      }
      sums[2 * nid] = g;
      sums[2 * nid + 1] = h;
    }
  }
  comm_->Allreduce(Span<int64_t>(sums), rabit::Op::kSum);
  RefitLeafValues(&sums, quantizer, params_.split, boxes_, tree);
  timer_.Add("refit leaves", start);
}

// Each thread adds to its own range of rows (RowPartitioner::ThreadRows): leaves handed out
// whole, whose rows interleave, made two threads write the same cache lines (the phase took
// longer on 2 threads than on 1).
void TreeGrower::UpdatePredictions(const RegTree& tree, std::vector<float>* preds, int stride,
                                   int group) {
  const auto start = PhaseTimer::Clock::now();
  float* out = preds->data();
  // With the rows' leaves mapped (RefitLeaves made the map), the rows in order. Otherwise the
  // leaves' rows: mapping them first would cost what this saves.
  if (leaves_mapped_) {
    std::vector<float> value(leaf_nids_.size());
    for (std::size_t i = 0; i < value.size(); ++i) value[i] = tree[leaf_nids_[i]].leaf_value;
    const uint16_t* leaf = row_leaf_.data();
#pragma omp parallel num_threads(nthread_)
    {
      const RowRange mine = RowPartitioner::ThreadRows(matrix_->NumRows(), omp_get_thread_num(),
                                                       omp_get_num_threads());
      for (uint64_t row = mine.begin; row < mine.end; ++row) {
        out[row * stride + group] += value[leaf[row]];
      }
    }
    timer_.Add("train predictions", start);
    return;
  }
  // Each thread adds to its own range of rows, a leaf's part found by binary search.
  std::vector<int> leaves;
  for (int nid = 0; nid < tree.NumNodes(); ++nid) {
    if (tree[nid].IsLeaf()) leaves.push_back(nid);
  }
#pragma omp parallel num_threads(nthread_)
  {
    const RowRange mine =
        RowPartitioner::ThreadRows(matrix_->NumRows(), omp_get_thread_num(), omp_get_num_threads());
    for (int leaf : leaves) {
      const float value = tree[leaf].leaf_value;
      const auto [rows, size] = partitioner_->NodeRowsIn(leaf, mine);
      uint64_t j = 0;
      for (; j + kLeafRowsAhead < size; ++j) {
        __builtin_prefetch(&out[static_cast<uint64_t>(rows[j + kLeafRowsAhead]) * stride + group],
                           1);
        out[static_cast<uint64_t>(rows[j]) * stride + group] += value;
      }
      for (; j < size; ++j) out[static_cast<uint64_t>(rows[j]) * stride + group] += value;
    }
  }
  timer_.Add("train predictions", start);
}

}  // namespace ringboost
