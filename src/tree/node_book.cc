#include "tree/node_book.h"

#include "common/error.h"

namespace ringboost {
namespace {
constexpr float kRtEps = 1e-6f;  // XGBoost's smallest loss change worth a split
}  // namespace

bool SplitAllowed(const SplitCandidate& s, int depth, int num_leaves, const TreeParams& params) {
  if (!s.found || s.loss_chg <= kRtEps) return false;
  if (s.left_sum.h == 0 || s.right_sum.h == 0) return false;
  if (s.loss_chg < params.split.gamma) return false;
  if (!BelowMaxDepth(depth, params)) return false;
  if (params.max_leaves > 0 && num_leaves >= params.max_leaves) return false;
  return true;
}
float InitNodeStats(const GradientSum& sum, const GradientQuantizer& quantizer,
                    const SplitParams& split_params, const WeightBounds* box, TreeNode* node) {
  const double g = quantizer.Grad(sum.g), h = quantizer.Hess(sum.h);
  const float w = CalcWeight(split_params, g, h);
  node->base_weight = box != nullptr ? box->Clamp(w) : w;
  node->leaf_value = node->base_weight * split_params.eta;
  node->sum_hess = static_cast<float>(h);
  return box != nullptr ? BoundedGainGivenWeight(split_params, g, h, node->base_weight)
                        : CalcGain(split_params, g, h);
}

void RefitLeafValues(std::vector<int64_t>* sums, const GradientQuantizer& quantizer,
                     const SplitParams& split_params, const std::vector<WeightBounds>& boxes,
                     RegTree* tree) {
  std::vector<int64_t>& s = *sums;
  const int n = tree->NumNodes();
  RB_CHECK(s.size() == 2 * static_cast<std::size_t>(n));
  RB_CHECK(boxes.empty() || boxes.size() == static_cast<std::size_t>(n));
  for (int nid = n - 1; nid >= 0; --nid) {  // children have larger ids
    TreeNode& node = (*tree)[nid];
    if (!node.IsLeaf()) {
      s[2 * nid] = s[2 * node.left] + s[2 * node.right];
      s[2 * nid + 1] = s[2 * node.left + 1] + s[2 * node.right + 1];
    }
    InitNodeStats(GradientSum{s[2 * nid], s[2 * nid + 1]}, quantizer, split_params,
                  boxes.empty() ? nullptr : &boxes[nid], &node);
  }
}

}  // namespace ringboost
