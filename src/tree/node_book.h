// What both tree growers (hist/grower.h on the CPU, gpu_hist/grower.h on the GPU) share, so that
// they cannot drift apart: the statistics of each node, every growth rule (whether a node's split
// is applied, whether its children may be split, which child's histogram is built and which is
// subtracted), and the order in which nodes are expanded (XGBoost's depthwise levels, or its
// lossguide queue: larger loss change first, then the older node), which fixes the node ids of the
// tree; and the constraints' bookkeeping (weight boxes, features allowed), tree/constraints.h.
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include "model/tree.h"
#include "tree/constraints.h"
#include "tree/gradient.h"
#include "tree/split_math.h"
#include "tree/split_types.h"
#include "tree/tree_params.h"

namespace ringboost {

// The statistics every grower keeps per node (its node state derives from this).
struct NodeStats {
  GradientSum sum;
  float gain = 0.0f;
  int depth = 0;
  uint64_t timestamp = 0;  // creation order, lossguide's tie-break
  SplitCandidate split;
  WeightBounds bounds;  // monotone constraints: the box of the node's children's weights
};

// A split applied to `nid`, with its children's ids.
struct Expansion {
  int nid, left, right;
};

// Whether a node at `depth` may be split: max_depth (0: no limit). The one place it is checked.
inline bool BelowMaxDepth(int depth, const TreeParams& params) {
  return params.max_depth <= 0 || depth < params.max_depth;
}

// Whether a node's best split `s` is applied (XGBoost hist's rules): a real loss change above
// gamma, both sides with hessian, depth and leaf limits.
bool SplitAllowed(const SplitCandidate& s, int depth, int num_leaves, const TreeParams& params);
// A new node of gradient sum `sum`: fills the tree node's weight, leaf value and cover and
// returns the node's own gain. Under monotone constraints (`box` not null) the weight is clamped
// to its parent's box and the gain is that of the clamped weight.
float InitNodeStats(const GradientSum& sum, const GradientQuantizer& quantizer,
                    const SplitParams& split_params, const WeightBounds* box, TreeNode* node);
// Low-bit mode's refit (gradient.h): `sums` holds, at 2 * nid and 2 * nid + 1, each leaf's g and
// h summed over every worker's rows from the exact quantized gradients (inner nodes' entries are
// overwritten); every node's statistics are recomputed from them by InitNodeStats. Under
// monotone constraints `boxes` holds each node's box from the growth (NodeBook::Boxes; empty
// without constraints), and every refit weight is clamped to its node's box: below a constrained
// split the lower side's leaves stay at most its mid-point and the higher side's at least it, as
// in growth, whatever the exact sums say.
void RefitLeafValues(std::vector<int64_t>* sums, const GradientQuantizer& quantizer,
                     const SplitParams& split_params, const std::vector<WeightBounds>& boxes,
                     RegTree* tree);

// The nodes of the tree being grown, indexed by node id. Node derives from NodeStats.
template <typename Node>
class NodeBook {
 public:
  explicit NodeBook(const TreeParams& params) : params_(params) {}

  // The constraints every tree obeys from now on (null or none: free); must outlive the book.
  void SetConstraints(const TreeConstraints* constraints) {
    monotone_ =
        constraints != nullptr && !constraints->monotone.empty() ? &constraints->monotone : nullptr;
    interaction_ = InteractionTracker(constraints != nullptr ? &constraints->interaction : nullptr);
  }
  // The per-feature monotone constraints (-1, 0, 1), or null when there are none.
  const std::vector<int8_t>* monotone() const { return monotone_; }
  // `features` (ascending) less those `nid` may not split on (interaction constraints): the
  // same set, not a copy, where the constraints leave the node every feature.
  std::shared_ptr<const std::vector<uint32_t>> FilterFeatures(
      int nid, std::shared_ptr<const std::vector<uint32_t>> features) const {
    if (!interaction_.Restricts(nid)) return features;
    auto kept = std::make_shared<std::vector<uint32_t>>(*features);
    interaction_.Filter(nid, kept.get());
    return kept;
  }

  // Forgets every node; gains and weights of the next tree use `quantizer`.
  void Reset(const GradientQuantizer* quantizer) {
    nodes_.clear();
    next_timestamp_ = 0;
    quantizer_ = quantizer;
    interaction_.Reset();
  }
  Node& operator[](int nid) { return nodes_[nid]; }
  const Node& operator[](int nid) const { return nodes_[nid]; }
  // Under monotone constraints, each node's box: the one its parent's split drew for it, which
  // holds its weight and every weight below it (RefitLeafValues); empty without constraints.
  std::vector<WeightBounds> Boxes() const {
    std::vector<WeightBounds> boxes;
    if (monotone_ == nullptr) return boxes;
    for (const Node& n : nodes_) boxes.push_back(n.bounds);
    return boxes;
  }

  // Whether the children of `e` may be split; those at the depth limit are leaves and need no
  // histogram.
  bool ChildrenMaySplit(const Expansion& e) const {
    return BelowMaxDepth(nodes_[e.left].depth, params_);
  }
  // Which child of `e` gets its histogram built from its rows (`left_rows`, `right_rows`: counts
  // over all workers): the smaller, left on a tie; the other is its parent's minus it. Returns
  // {parent, built child, sibling}.
  static Expansion BuiltChild(const Expansion& e, uint64_t left_rows, uint64_t right_rows) {
    const bool left_smaller = left_rows <= right_rows;
    return left_smaller ? Expansion{e.nid, e.left, e.right} : Expansion{e.nid, e.right, e.left};
  }

  // Node `nid`, child of `parent` (-1: the root), with gradient sum `sum`.
  void InitChild(int nid, int parent, const GradientSum& sum, RegTree* tree) {
    if (static_cast<std::size_t>(nid) >= nodes_.size()) nodes_.resize(nid + 1);
    const WeightBounds box = parent < 0 ? WeightBounds{} : nodes_[parent].bounds;
    Node& n = nodes_[nid];
    n = Node{};
    n.sum = sum;
    n.depth = parent < 0 ? 0 : nodes_[parent].depth + 1;
    n.timestamp = next_timestamp_++;
    n.bounds = box;  // until its split's ChildBounds narrows it
    n.gain =
        InitNodeStats(sum, *quantizer_, params_.split, monotone_ ? &box : nullptr, &(*tree)[nid]);
  }

  // Grows `tree` from its evaluated root (node 0). expand(expansions) partitions the rows of the
  // applied splits and returns the children that may still be split, with their best splits;
  // leaf(nid) releases what the grower holds for a node that stays a leaf.
  template <typename Expand, typename Leaf>
  void Grow(RegTree* tree, const Expand& expand, const Leaf& leaf) {
    if (params_.grow_policy == GrowPolicy::kLossguide) {
      GrowLossguide(tree, expand, leaf);
    } else {
      GrowDepthwise(tree, expand, leaf);
    }
  }

 private:
  std::vector<Expansion> ApplySplits(const std::vector<int>& nids, RegTree* tree, int* num_leaves) {
    std::vector<Expansion> out;
    for (int nid : nids) {
      const Node& n = nodes_[nid];
      if (!SplitAllowed(n.split, n.depth, *num_leaves, params_)) continue;
      const SplitCandidate s = n.split;
      const int left =
          s.is_cat
              ? tree->SplitCategorical(nid, s.feature, s.categories, s.default_left, s.loss_chg)
              : tree->Split(nid, s.feature, s.split_cond, s.default_left, s.loss_chg);
      InitChild(left, nid, s.left_sum, tree);
      InitChild(left + 1, nid, s.right_sum, tree);
      if (monotone_ != nullptr) {
        ChildBounds(nodes_[nid].bounds, (*monotone_)[s.feature], (*tree)[left].base_weight,
                    (*tree)[left + 1].base_weight, &nodes_[left].bounds, &nodes_[left + 1].bounds);
      }
      interaction_.Split(nid, s.feature, left, left + 1);
      ++*num_leaves;
      out.push_back(Expansion{nid, left, left + 1});
    }
    return out;
  }

  template <typename Expand, typename Leaf>
  void GrowDepthwise(RegTree* tree, const Expand& expand, const Leaf& leaf) {
    std::vector<int> level{0};
    int num_leaves = 1;
    while (!level.empty()) {
      const std::vector<Expansion> expansions = ApplySplits(level, tree, &num_leaves);
      for (int nid : level) {
        if ((*tree)[nid].IsLeaf()) leaf(nid);
      }
      if (expansions.empty()) break;
      level = expand(expansions);
    }
  }

  template <typename Expand, typename Leaf>
  void GrowLossguide(RegTree* tree, const Expand& expand, const Leaf& leaf) {
    auto later = [this](int a, int b) {
      const Node& x = nodes_[a];
      const Node& y = nodes_[b];
      if (x.split.loss_chg == y.split.loss_chg) return x.timestamp > y.timestamp;
      return x.split.loss_chg < y.split.loss_chg;
    };
    std::priority_queue<int, std::vector<int>, decltype(later)> queue(later);
    queue.push(0);
    int num_leaves = 1;
    while (!queue.empty()) {
      const int nid = queue.top();
      queue.pop();
      const std::vector<Expansion> expansions = ApplySplits({nid}, tree, &num_leaves);
      if (expansions.empty()) {
        leaf(nid);
        continue;
      }
      for (int c : expand(expansions)) queue.push(c);
    }
  }

  TreeParams params_;
  const GradientQuantizer* quantizer_ = nullptr;
  std::vector<Node> nodes_;
  uint64_t next_timestamp_ = 0;
  const std::vector<int8_t>* monotone_ = nullptr;
  InteractionTracker interaction_{nullptr};
};

}  // namespace ringboost
