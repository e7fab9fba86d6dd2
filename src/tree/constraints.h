// XGBoost's tree constraints on the CPU's hist method (monotone_constraints,
// interaction_constraints), resolved to the training columns.
//
// Monotone (XGBoost's TreeEvaluator): every node carries a box [lower, upper] for its weight,
// the root's unbounded. A node's candidate children weigh their optimal weights clamped to the
// node's box; a split on a feature constrained to increase (decrease) is rejected unless the left
// weight is <= (>=) the right one, and under any constraint a side's gain is that of its clamped
// weight, -(2 G w + (H + lambda) w^2) - 2 alpha |w| in double, rounded to float (split_math.h's
// GainOfWeight). The children of an applied split inherit the box, and a constrained split cuts
// it at the mid-point of the two children's weights: the lower side gets it as its upper bound,
// the higher side as its lower bound. So every leaf below the lower child weighs at most the
// mid-point and every leaf below the higher one at least it, and predictions move with the
// feature in the promised direction.
//
// Interaction (XGBoost's FeatureInteractionConstraintHost): the root may split on any feature;
// below a split, a node may split on the features already used on its path and on every feature
// of each set that contains all of them. A path thus stays inside one set (or, for a feature in no
// set, on that feature alone).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tree/split_math.h"

namespace ringboost {

struct Params;
struct FeatureMap;

// The constraints of a training run over its columns.
struct TreeConstraints {
  std::vector<int8_t> monotone;                    // per column, -1/0/1; empty when all are 0
  std::vector<std::vector<uint32_t>> interaction;  // sets of columns, each ascending; empty: none

  // From params' monotone_constraints and interaction_constraints for training data of
  // `num_features` features (ids 0..num_features-1); names come from `fmap` (may be null: then
  // f0, f1, ...). Throws Error naming the key and what is allowed for a bad value.
  static TreeConstraints From(const Params& params, uint32_t num_features, const FeatureMap* fmap);
  // The same constraints over renumbered columns: column c is the data's feature ids[c] (features
  // not among them are dropped: no tree can split on them).
  TreeConstraints Select(const std::vector<uint32_t>& ids) const;
  bool Any() const { return !monotone.empty() || !interaction.empty(); }
};

// WeightBounds, BoundedGainGivenWeight and BoundedLossChange, the arithmetic both tree methods
// run, are in split_math.h (host and device code).

// The boxes of two new children of a split on a feature with monotone constraint `c`, whose
// parent has box `parent` and whose children weigh `left_weight`, `right_weight` (clamped).
void ChildBounds(WeightBounds parent, int c, float left_weight, float right_weight,
                 WeightBounds* left, WeightBounds* right);

// The features each node of the tree being grown may split on (interaction constraints).
class InteractionTracker {
 public:
  // `sets`: the constraint's sets (ascending); null or empty: every feature is always allowed.
  explicit InteractionTracker(const std::vector<std::vector<uint32_t>>* sets) : sets_(sets) {}
  // A new tree: only the root (node 0), allowed everything.
  void Reset();
  // Node `nid` split on `feature` into `left` and `right`.
  void Split(int nid, uint32_t feature, int left, int right);
  // Drops from `features` (ascending) those `nid` may not split on.
  void Filter(int nid, std::vector<uint32_t>* features) const;
  // Whether Filter can drop anything for `nid`.
  bool Restricts(int nid) const { return sets_ != nullptr && !sets_->empty() && !nodes_[nid].all; }

 private:
  struct NodeSets {
    std::vector<uint32_t> path;     // features split on above the node, ascending
    std::vector<uint32_t> allowed;  // ascending
    bool all = true;                // the root: everything
  };
  const std::vector<std::vector<uint32_t>>* sets_;
  std::vector<NodeSets> nodes_;
};

}  // namespace ringboost
