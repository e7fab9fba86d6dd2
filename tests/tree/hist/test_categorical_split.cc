// Categorical splits (categorical_split.cc) on tiny histograms, the expected split derived by
// hand from XGBoost 3.x's rules (gain G^2 / (H + lambda), lambda 1, min_child_weight 1).
#include <gtest/gtest.h>

#include <vector>

#include "tree/hist/split_evaluator.h"

namespace ringboost {
namespace {

struct Row {
  int code;  // -1: missing
  float grad;
  float hess;
};

// One categorical feature with codes 0 .. n_codes - 1 (a bin each, cut = code + 1) and the node
// histogram of `rows`; evaluates the root with `params`, or with a monotone `constraint` (-1, 0,
// 1) on the feature, a node in the box `bounds` of gain `gain`.
struct Constrained {
  int8_t constraint;
  WeightBounds bounds;
  float gain;
};
SplitCandidate BestSplit(const std::vector<Row>& rows, uint32_t n_codes, SplitParams params,
                         const Constrained* constrained = nullptr) {
  HistogramCuts cuts;
  cuts.ptr = {0, n_codes};
  for (uint32_t c = 0; c < n_codes; ++c) cuts.values.push_back(static_cast<float>(c + 1));
  cuts.min_values = {-1.0f};
  cuts.is_cat = {1};
  std::vector<GradPair> gpair;
  for (const Row& r : rows) gpair.push_back(GradPair{r.grad, r.hess});
  auto comm = rabit::MakeLocalCommunicator();
  const GradientQuantizer q(gpair, 1, 0, comm.get());
  Histogram hist(n_codes);
  GradientSum sum;
  for (const Row& r : rows) {
    const GradientSum s = q.Quantize(GradPair{r.grad, r.hess});
    sum += s;
    if (r.code >= 0) hist[r.code] += s;
  }
  SplitEvaluator evaluator(&cuts, params, &q);
  const std::vector<uint32_t> features = {0};
  NodeToEvaluate node{&hist, sum, CalcGain(params, q.Grad(sum.g), q.Hess(sum.h)), &features};
  std::vector<int8_t> monotone;
  if (constrained != nullptr) {
    monotone = {constrained->constraint};
    evaluator.SetMonotone(&monotone);
    node.bounds = constrained->bounds;
    node.gain = constrained->gain;
  }
  return evaluator.Evaluate({node}, 1)[0];
}

// Code 0: G -4, H 2; codes 1 and 2: G 2, H 2 each; one missing row G 3, H 1. Node G 3, H 7,
// gain 9/8. Code 0 alone right, missing left: 16/3 + 49/6 - 9/8 = 12.375, the best of the six
// candidates (code 0 with missing right: 2.325; code 1 or 2: 0.375 and 5.925).
std::vector<Row> OneHotRows() {
  return {{0, -2, 1}, {0, -2, 1}, {1, 1, 1}, {1, 1, 1}, {2, 1, 1}, {2, 1, 1}, {-1, 3, 1}};
}

TEST(CategoricalSplit, OneHotBelowMaxCatToOnehot) {
  SplitParams p;  // max_cat_to_onehot 4 > 3 categories
  const SplitCandidate s = BestSplit(OneHotRows(), 3, p);
  ASSERT_TRUE(s.found);
  EXPECT_TRUE(s.is_cat);
  EXPECT_EQ(s.categories, std::vector<uint32_t>({0}));
  EXPECT_TRUE(s.default_left);
  EXPECT_NEAR(s.loss_chg, 12.375f, 1e-4);
  EXPECT_EQ(s.left_sum.h * 2, s.right_sum.h * 5);  // H 5 left (missing included), 2 right
}

// Codes 0..3 with (G, H) = (-4, 2), (2, 2), (-1, 2), (3, 2), nothing missing: node G 0, H 8,
// gain 0. Weights -G/(H+1): 4/3, -2/3, 1/3, -1, so sorted 3, 1, 2, 0.
//  forwards (the first k right): {3} 3 + 9/7 = 4.286; {3,1} 25/5 + 25/5 = 10; {3,1,2} 7.619
//  backwards (the last k left): {0} 7.619; {2,0} 10 (not larger); {1,2,0} 4.286
// so {1,3} go right, missing (none) left, loss change 10.
std::vector<Row> PartitionRows() {
  return {{0, -2, 1}, {0, -2, 1}, {1, 1, 1},   {1, 1, 1},
          {2, -1, 1}, {2, 0, 1},  {3, 1.5, 1}, {3, 1.5, 1}};
}

TEST(CategoricalSplit, PartitionBySortedWeights) {
  SplitParams p;
  p.max_cat_to_onehot = 2;  // 4 categories: partition
  const SplitCandidate s = BestSplit(PartitionRows(), 4, p);
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.categories, std::vector<uint32_t>({1, 3}));
  EXPECT_TRUE(s.default_left);
  EXPECT_NEAR(s.loss_chg, 10.0f, 1e-4);
}

// max_cat_threshold 2: one step each way. Forwards {3} right: 4.286; backwards {0} left (and the
// missing values right): 16/3 + 16/7 = 7.619. So {1, 2, 3} go right with the missing values.
TEST(CategoricalSplit, MaxCatThresholdLimitsTheSteps) {
  SplitParams p;
  p.max_cat_to_onehot = 2;
  p.max_cat_threshold = 2;
  const SplitCandidate s = BestSplit(PartitionRows(), 4, p);
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.categories, std::vector<uint32_t>({1, 2, 3}));
  EXPECT_FALSE(s.default_left);
  EXPECT_NEAR(s.loss_chg, 16.0f / 3 + 16.0f / 7, 1e-4);
}

// An empty bin (code 4, absent from the rows) has weight 0 and sorts between 1/3 and -2/3's
// neighbours: sorted 3, 1, 4, 2, 0. Forwards {3,1} still wins with 10, and the right side's sums
// do not change: the empty code is not among the categories sent right.
TEST(CategoricalSplit, EmptyCodesKeepTheirBin) {
  SplitParams p;
  p.max_cat_to_onehot = 2;
  const SplitCandidate s = BestSplit(PartitionRows(), 5, p);
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.categories, std::vector<uint32_t>({1, 3}));
  EXPECT_NEAR(s.loss_chg, 10.0f, 1e-4);
}

// A monotone constraint on the categorical feature itself keeps its order as on a numerical one
// (XGBoost's CalcSplitGain: -inf where the weights break it). OneHotRows under -1 (left >= right):
// code 0 right (weight 4/3 against -7/6 left, and 1/4 against -4/5 with the missing row) breaks
// it; code 1 with the missing row right (right G 5, H 3: -5/4; left G -2, H 4: 2/5) keeps it, for
// 25/4 + 4/5 - 9/8 = 5.925 (code 2 ties, later). Under +1 the free best, code 0 right, keeps it.
TEST(CategoricalSplit, MonotoneOnTheFeatureOneHot) {
  SplitParams p;
  const Constrained decreasing{-1, {}, 9.0f / 8};
  const SplitCandidate s = BestSplit(OneHotRows(), 3, p, &decreasing);
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.categories, std::vector<uint32_t>({1}));
  EXPECT_FALSE(s.default_left);
  EXPECT_NEAR(s.loss_chg, 5.925f, 1e-4);
  EXPECT_EQ(s.left_sum.h * 3, s.right_sum.h * 4);  // H 4 left, 3 right (the missing row)
  const Constrained increasing{1, {}, 9.0f / 8};
  const SplitCandidate t = BestSplit(OneHotRows(), 3, p, &increasing);
  ASSERT_TRUE(t.found);
  EXPECT_EQ(t.categories, std::vector<uint32_t>({0}));
  EXPECT_NEAR(t.loss_chg, 12.375f, 1e-4);
  EXPECT_TRUE(t.default_left);
}

// A partition sends the categories of the lowest weights right (forwards) or of the highest left
// (backwards), so with nothing missing every candidate has left >= right: +1 allows none of
// PartitionRows's, -1 keeps the free best ({1, 3} right: weights 1 left, -1 right; loss change 10).
TEST(CategoricalSplit, MonotoneOnTheFeaturePartition) {
  SplitParams p;
  p.max_cat_to_onehot = 2;
  const Constrained increasing{1, {}, 0.0f};
  EXPECT_FALSE(BestSplit(PartitionRows(), 4, p, &increasing).found);
  const Constrained decreasing{-1, {}, 0.0f};
  const SplitCandidate s = BestSplit(PartitionRows(), 4, p, &decreasing);
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.categories, std::vector<uint32_t>({1, 3}));
  EXPECT_NEAR(s.loss_chg, 10.0f, 1e-4);
}

// A node under a constrained split (the feature itself free) weighs its categorical candidates in
// its box, as the numerical ones: OneHotRows in a box with ceiling 0.5 and the node's weight -3/8
// inside it (gain 9/8). Code 0 right, missing left: the right weight 4/3 clamped to 0.5 gains
// -(2 (-4) 0.5 + 3 0.25) = 3.25, the left 49/6, so 3.25 + 49/6 - 9/8 = 10.2917 (free: 12.375); it
// still beats code 1 with the missing row right (its weights -5/4 and 2/5 inside the box: 5.925).
TEST(CategoricalSplit, WeighedInTheNodesBox) {
  SplitParams p;
  WeightBounds box;
  box.upper = 0.5f;
  const Constrained bounded{0, box, 9.0f / 8};
  const SplitCandidate s = BestSplit(OneHotRows(), 3, p, &bounded);
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.categories, std::vector<uint32_t>({0}));
  EXPECT_TRUE(s.default_left);
  EXPECT_NEAR(s.loss_chg, 3.25f + 49.0f / 6 - 9.0f / 8, 1e-4);
}

// A category lighter than min_child_weight sorts by its own weight, as XGBoost 3.4.1 sorts it
// (3.2 and older weighed it 0). min_child_weight 3; code 0: G 6, H 2 (weight -2, light); codes
// 1, 2, 3: (G, H) = (2, 4), (3, 4), (1, 4), weights -2/5, -3/5, -1/5. Node G 12, H 14, gain
// 144/15. Sorted 0, 2, 1, 3: forwards {0} is too light, {0, 2} right gains 81/7 + 9/9 - 144/15
// = 2.971, {0, 2, 1} 121/11 + 1/5 - 144/15 = 1.6; backwards {3} left 1.6, {1, 3} ties 2.971,
// {2, 1, 3} leaves {0} too light. Weighed 0, code 0 would sort last (2, 1, 3, 0) and the best
// would be {1, 2} right, 0.178. (Checked against XGBoost 3.4.1 on 12 codes: tree 0's root.)
TEST(CategoricalSplit, LightCategoriesSortByTheirWeight) {
  SplitParams p;
  p.max_cat_to_onehot = 2;
  p.min_child_weight = 3.0f;
  std::vector<Row> rows = {{0, 3, 1}, {0, 3, 1}};
  for (int i = 0; i < 4; ++i) {
    rows.push_back({1, 0.5f, 1});
    rows.push_back({2, 0.75f, 1});
    rows.push_back({3, 0.25f, 1});
  }
  const SplitCandidate s = BestSplit(rows, 4, p);
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.categories, std::vector<uint32_t>({0, 2}));
  EXPECT_TRUE(s.default_left);
  EXPECT_NEAR(s.loss_chg, 81.0f / 7 + 1.0f - 144.0f / 15, 1e-4);
}

TEST(CategoricalSplit, NoGainNoSplit) {
  SplitParams p;
  const SplitCandidate s = BestSplit({{0, 1, 1}, {1, 1, 1}, {2, 1, 1}}, 3, p);
  EXPECT_FALSE(s.found);  // the same gradient everywhere: every candidate loses
}

}  // namespace
}  // namespace ringboost
