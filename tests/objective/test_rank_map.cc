// rank:map (XGBoost 3.x's LambdaRankMAP with topk pairs) on tiny groups, the gradients derived
// by hand from the change in average precision of each swapped pair.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "label_rows.h"
#include "objective/objective.h"
#include "objective_helpers.h"

namespace ringboost {
namespace {

using test::Grad;
using test::LabelRows;
using test::Make;

double Sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// log2(1 + L) / L: the topk normalisation of a group whose pairs' 2 |lambda| sum to L.
double Norm(double sum_lambda) { return std::log2(1.0 + sum_lambda) / sum_lambda; }

void ExpectGrad(const GradPair& got, double grad, double hess, const char* what) {
  EXPECT_NEAR(got.grad, grad, 1e-6 * std::fabs(grad) + 1e-9) << what;
  EXPECT_NEAR(got.hess, hess, 1e-6 * std::fabs(hess) + 1e-9) << what;
}

// Labels 0, 1, 0 at equal margins: the sort keeps row order, so AP = 1/2. Swapping positions 0
// and 1 makes it 1 (|delta| = 1/2); swapping 1 and 2 makes it 1/3 (|delta| = 1/6); rows 0 and 2
// share a label, so no pair. sigmoid(0) = 1/2: lambda = -delta / 2, hessian = delta / 2.
// Equal margins skip the score normalisation. L = 2 (1/4 + 1/12) = 2/3.
TEST(RankMap, GradientsOfOneGroupAtEqualMargins) {
  const auto g = Grad(*Make("rank:map"), LabelRows({0, 1, 0}), {0.0f, 0.0f, 0.0f});
  const double norm = Norm(2.0 / 3);
  ExpectGrad(g[0], 0.25 * norm, 0.25 * norm, "row 0: pair with row 1");
  ExpectGrad(g[1], -(0.25 + 1.0 / 12) * norm, (0.25 + 1.0 / 12) * norm, "row 1: both pairs");
  ExpectGrad(g[2], 1.0 / 12 * norm, 1.0 / 12 * norm, "row 2: pair with row 1");
}

// lambdarank_num_pair_per_sample = 1: only pairs with the first position, so row 2 gets nothing
// and L = 1/2.
TEST(RankMap, TopKLimitsThePairs) {
  Params p;
  p.lambdarank_num_pair_per_sample = 1;
  const auto g = Grad(*Make("rank:map", p), LabelRows({0, 1, 0}), {0.0f, 0.0f, 0.0f});
  const double norm = Norm(0.5);
  ExpectGrad(g[0], 0.25 * norm, 0.25 * norm, "row 0");
  ExpectGrad(g[1], -0.25 * norm, 0.25 * norm, "row 1");
  ExpectGrad(g[2], 0.0, 0.0, "row 2");
  EXPECT_EQ(Make("rank:map", p)->DefaultMetric(), "map@1");
}

// Labels 1, 0 with margins 0, 1: the relevant row is second (AP 1/2) and the swap makes it 1,
// |delta| = 1/2, divided by |0 - 1| + 0.01 (the score normalisation); sigmoid(0 - 1).
TEST(RankMap, ScoreAndGroupNormalisation) {
  const double delta = 0.5 / 1.01, s = Sig(-1.0);
  const double lambda = (s - 1) * delta, hess = 2 * s * (1 - s) * delta;
  auto g = Grad(*Make("rank:map"), LabelRows({1, 0}), {0.0f, 1.0f});
  const double norm = Norm(-2 * lambda);
  ExpectGrad(g[0], lambda * norm, hess * norm, "relevant row");
  ExpectGrad(g[1], -lambda * norm, hess * norm, "irrelevant row");

  Params p;
  p.lambdarank_normalization = false;
  p.lambdarank_score_normalization = false;
  g = Grad(*Make("rank:map", p), LabelRows({1, 0}), {0.0f, 1.0f});
  ExpectGrad(g[0], (s - 1) * 0.5, 2 * s * (1 - s) * 0.5, "both normalisations off");
  ExpectGrad(g[1], -(s - 1) * 0.5, 2 * s * (1 - s) * 0.5, "both normalisations off");
}

// Group weights 1, 3 and 1 scale each group by its weight times groups / sum of weights = 3 / 5;
// a group of one label has no pair.
TEST(RankMap, GroupWeights) {
  const DataSet d = LabelRows({1, 0, 0, 1, 1, 1}, {1.0f, 3.0f, 1.0f}, {0, 2, 4, 6});
  const auto g = Grad(*Make("rank:map"), d, {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f});
  // At equal margins the first pair of each group is already in AP order (group 1: 1, 0; AP 1 ->
  // 1/2 when swapped) or not (group 2: 0, 1; AP 1/2 -> 1): |delta| = 1/2 either way.
  const double norm = Norm(0.5), base = 0.25 * norm;
  ExpectGrad(g[0], -base * 0.6, base * 0.6, "group 1, weight 1 x 0.6");
  ExpectGrad(g[1], base * 0.6, base * 0.6, "group 1");
  ExpectGrad(g[2], base * 1.8, base * 1.8, "group 2, weight 3 x 0.6");
  ExpectGrad(g[3], -base * 1.8, base * 1.8, "group 2");
  ExpectGrad(g[4], 0.0, 0.0, "group 3: one label");
  ExpectGrad(g[5], 0.0, 0.0, "group 3");
}

TEST(RankMap, LabelsMustBeBinary) {
  const auto obj = Make("rank:map");
  EXPECT_EQ(obj->CheckLabel(0.0f), nullptr);
  EXPECT_EQ(obj->CheckLabel(1.0f), nullptr);
  EXPECT_NE(obj->CheckLabel(2.0f), nullptr);
  EXPECT_NE(obj->CheckLabel(0.5f), nullptr);
  try {
    Grad(*obj, LabelRows({2, 0}), {0.0f, 0.0f});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("0 or 1 for rank:map"), std::string::npos) << e.what();
  }
}

// The lambdarank_* keys are 3.x's: rank:pairwise and rank:ndcg (1.7's) refuse them by name.
TEST(RankMap, LambdaRankKeysBelongToRankMap) {
  Params p;
  p.given["lambdarank_normalization"] = "0";
  EXPECT_NE(Make("rank:map", p), nullptr);
  for (const char* name : {"rank:pairwise", "rank:ndcg", "reg:squarederror"}) {
    try {
      Make(name, p);
      FAIL() << name << ": no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("lambdarank_normalization applies to "
                                           "objective=rank:map only"),
                std::string::npos)
          << e.what();
    }
  }
}

// Many groups of random margins: the same bits on one thread and on four.
TEST(RankMap, ThreadsDoNotChangeTheGradients) {
  std::vector<float> labels, preds;
  std::vector<uint32_t> groups{0};
  uint32_t x = 12345;
  auto next = [&x] { return x = x * 1103515245u + 12345u; };
  for (int k = 0; k < 200; ++k) {
    const uint32_t n = 1 + next() % 60;
    for (uint32_t i = 0; i < n; ++i) {
      labels.push_back(static_cast<float>(next() % 3 == 0));
      preds.push_back(static_cast<float>(next() % 1000) / 250.0f);
    }
    groups.push_back(static_cast<uint32_t>(labels.size()));
  }
  const DataSet d = LabelRows(labels, {}, groups);
  Params one, four;
  one.nthread = 1;
  four.nthread = 4;
  const auto a = Grad(*Make("rank:map", one), d, preds);
  const auto b = Grad(*Make("rank:map", four), d, preds);
  bool any = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].grad, b[i].grad) << i;
    EXPECT_EQ(a[i].hess, b[i].hess) << i;
    any = any || a[i].grad != 0.0f;
  }
  EXPECT_TRUE(any);
}

}  // namespace
}  // namespace ringboost
