// Objectives on a few rows, with the expected gradients derived by hand.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "label_rows.h"
#include "objective/elementwise.h"
#include "objective/objective.h"
#include "objective_helpers.h"

namespace ringboost {
namespace {

using test::LabelRows;

using test::Grad;
using test::Make;

TEST(Objective, LogisticAtMarginZero) {
  // p = sigmoid(0) = 0.5: g = p - y, h = p (1 - p) = 0.25.
  auto obj = Make("binary:logistic");
  auto g = Grad(*obj, LabelRows({0.0f, 1.0f, 0.25f}), {0.0f, 0.0f, 0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, 0.5f);
  EXPECT_FLOAT_EQ(g[1].grad, -0.5f);
  EXPECT_FLOAT_EQ(g[2].grad, 0.25f);
  for (const auto& gp : g) EXPECT_FLOAT_EQ(gp.hess, 0.25f);
}

TEST(Objective, LogisticWeightsAndScalePosWeight) {
  auto weighted = Make("binary:logistic");
  auto g = Grad(*weighted, LabelRows({0.0f, 1.0f}, {2.0f, 3.0f}), {0.0f, 0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, 1.0f);   // 0.5 * 2
  EXPECT_FLOAT_EQ(g[0].hess, 0.5f);   // 0.25 * 2
  EXPECT_FLOAT_EQ(g[1].grad, -1.5f);  // -0.5 * 3
  EXPECT_FLOAT_EQ(g[1].hess, 0.75f);

  Params p;
  p.scale_pos_weight = 4.0;
  auto scaled = Make("binary:logistic", p);
  g = Grad(*scaled, LabelRows({0.0f, 1.0f}), {0.0f, 0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, 0.5f);  // negatives unchanged
  EXPECT_FLOAT_EQ(g[1].grad, -2.0f);
  EXPECT_FLOAT_EQ(g[1].hess, 1.0f);
}

TEST(Objective, LogisticMarginOne) {
  // sigmoid(1) = 0.7310586; h = 0.7310586 * 0.2689414 = 0.1966119.
  auto g = Grad(*Make("reg:logistic"), LabelRows({1.0f}), {1.0f});
  EXPECT_NEAR(g[0].grad, -0.2689414f, 1e-6);
  EXPECT_NEAR(g[0].hess, 0.1966119f, 1e-6);
}

TEST(Objective, SquaredError) {
  auto obj = Make("reg:squarederror");
  auto g = Grad(*obj, LabelRows({3.0f, 0.5f}, {1.0f, 2.0f}), {1.0f, 2.0f});
  EXPECT_FLOAT_EQ(g[0].grad, -2.0f);
  EXPECT_FLOAT_EQ(g[0].hess, 1.0f);
  EXPECT_FLOAT_EQ(g[1].grad, 3.0f);  // (2 - 0.5) * 2
  EXPECT_FLOAT_EQ(g[1].hess, 2.0f);
  EXPECT_EQ(Make("reg:linear")->Name(), "reg:squarederror");
  // XGBoost applies scale_pos_weight to label == 1 for every loss of this family.
  Params p;
  p.scale_pos_weight = 3.0;
  g = Grad(*Make("reg:squarederror", p), LabelRows({1.0f}), {0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, -3.0f);
  EXPECT_FLOAT_EQ(g[0].hess, 3.0f);
}

TEST(Objective, LogitRawKeepsMargins) {
  auto obj = Make("binary:logitraw");
  auto g = Grad(*obj, LabelRows({1.0f}), {0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, -0.5f);
  EXPECT_FLOAT_EQ(g[0].hess, 0.25f);
  std::vector<float> preds{-2.0f, 3.0f};
  obj->PredTransform(&preds);
  EXPECT_EQ(preds, (std::vector<float>{-2.0f, 3.0f}));
  EXPECT_FLOAT_EQ(obj->ProbToMargin(0.5f), 0.5f);  // XGBoost 1.7: identity for logitraw
}

TEST(Objective, PredTransformAndBaseMargin) {
  auto obj = Make("binary:logistic");
  std::vector<float> preds{0.0f};
  obj->PredTransform(&preds);
  EXPECT_FLOAT_EQ(preds[0], 0.5f);
  EXPECT_FLOAT_EQ(obj->ProbToMargin(0.5f), 0.0f);
  EXPECT_NEAR(obj->ProbToMargin(0.75f), std::log(3.0f), 1e-6);  // logit(0.75) = ln 3
  EXPECT_THROW(obj->ProbToMargin(1.0f), Error);
  EXPECT_THROW(obj->ProbToMargin(0.0f), Error);
  EXPECT_FLOAT_EQ(Make("reg:squarederror")->ProbToMargin(0.5f), 0.5f);
  auto poisson = Make("count:poisson");
  EXPECT_FLOAT_EQ(poisson->ProbToMargin(1.0f), 0.0f);
  EXPECT_FLOAT_EQ(poisson->ProbToMargin(0.5f), std::log(0.5f));
  EXPECT_THROW(poisson->ProbToMargin(0.0f), Error);
  preds = {0.0f, std::log(2.0f)};
  poisson->PredTransform(&preds);
  EXPECT_FLOAT_EQ(preds[0], 1.0f);
  EXPECT_FLOAT_EQ(preds[1], 2.0f);
}

TEST(Objective, PoissonDefaultMaxDeltaStep) {
  // grad exp(0) - 2 = -1; hess exp(0 + 0.7) (0.7 is the Poisson default).
  auto g = Grad(*Make("count:poisson"), LabelRows({2.0f, 0.0f}, {1.0f, 3.0f}), {0.0f, 0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, -1.0f);
  EXPECT_FLOAT_EQ(g[0].hess, std::exp(0.7f));
  EXPECT_NEAR(g[0].hess, 2.0137527f, 1e-6);
  EXPECT_FLOAT_EQ(g[1].grad, 3.0f);  // (1 - 0) * 3
  EXPECT_FLOAT_EQ(g[1].hess, 3.0f * std::exp(0.7f));
  // A user's max_delta_step replaces the default, even 0.
  Params p;
  p.max_delta_step = 0.0;
  p.given["max_delta_step"] = "0";
  g = Grad(*Make("count:poisson", p), LabelRows({2.0f}), {0.0f});
  EXPECT_FLOAT_EQ(g[0].hess, 1.0f);
}

TEST(Objective, SoftmaxGradient) {
  Params p;
  p.num_class = 3;
  auto obj = Make("multi:softprob", p);
  EXPECT_EQ(obj->NumGroups(), 3);
  // Equal margins: p = 1/3; g = p - [k == y]; h = 2 p (1 - p) = 4/9.
  auto g = Grad(*obj, LabelRows({1.0f}), {0.0f, 0.0f, 0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, 1.0f / 3);
  EXPECT_FLOAT_EQ(g[1].grad, -2.0f / 3);
  EXPECT_FLOAT_EQ(g[2].grad, 1.0f / 3);
  for (const auto& gp : g) EXPECT_FLOAT_EQ(gp.hess, 4.0f / 9);
  // Margins {0, ln 3, -inf-ish}: p = {0.25, 0.75, ~0}; weight 2 scales grad and hess.
  g = Grad(*obj, LabelRows({0.0f}, {2.0f}), {0.0f, std::log(3.0f), -100.0f});
  EXPECT_NEAR(g[0].grad, -1.5f, 1e-6);  // (0.25 - 1) * 2
  EXPECT_NEAR(g[1].grad, 1.5f, 1e-6);
  EXPECT_NEAR(g[0].hess, 0.75f, 1e-6);  // 2 * 0.25 * 0.75 * 2
  EXPECT_NEAR(g[2].grad, 0.0f, 1e-6);
  EXPECT_FLOAT_EQ(g[2].hess, 1e-16f);  // floored
}

TEST(Objective, SoftmaxTransforms) {
  Params p;
  p.num_class = 3;
  // multi:softmax predicts ONE class id per row: the vector shrinks from rows*3 to rows.
  auto softmax = Make("multi:softmax", p);
  std::vector<float> preds{0.1f, 0.5f, 0.2f, 0.9f, 0.9f, 0.1f};
  softmax->PredTransform(&preds);
  EXPECT_EQ(preds, (std::vector<float>{1.0f, 0.0f}));  // first maximum wins a tie
  // ...but metrics see probabilities for both.
  preds = {0.0f, 0.0f, 0.0f};
  softmax->EvalTransform(&preds);
  for (float v : preds) EXPECT_FLOAT_EQ(v, 1.0f / 3);
  preds = {0.0f, std::log(3.0f), -1000.0f};
  Make("multi:softprob", p)->PredTransform(&preds);
  EXPECT_NEAR(preds[0], 0.25f, 1e-6);
  EXPECT_NEAR(preds[1], 0.75f, 1e-6);
  EXPECT_EQ(preds[2], 0.0f);
  EXPECT_EQ(softmax->DefaultMetric(), "mlogloss");
}

TEST(Objective, SoftmaxNeedsNumClass) { EXPECT_THROW(Make("multi:softmax"), Error); }

// reg:squaredlogerror starts from base_score as a prediction, which log1p must take: -1 and
// below are refused by name (XGBoost 3.4.1 trains from -2 and prints rmsle nan every round).
TEST(Objective, SquaredLogErrorBaseScoreAboveMinusOne) {
  const auto obj = Make("reg:squaredlogerror");
  EXPECT_EQ(obj->ProbToMargin(0.5f), 0.5f);
  EXPECT_EQ(obj->ProbToMargin(-0.5f), -0.5f);
  for (float bad : {-1.0f, -2.0f}) {
    try {
      obj->ProbToMargin(bad);
      FAIL() << "no error for " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("must be > -1 for reg:squaredlogerror"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Objective, LabelRules) {
  Params p;
  p.num_class = 3;
  std::vector<GradPair> out;
  EXPECT_STREQ(Make("binary:logistic")->CheckLabel(1.5f),
               "label must be in [0, 1] for binary:logistic");
  EXPECT_NE(Make("reg:logistic")->CheckLabel(-0.1f), nullptr);
  EXPECT_EQ(Make("binary:logistic")->CheckLabel(0.3f), nullptr);
  EXPECT_EQ(Make("reg:squarederror")->CheckLabel(-7.0f), nullptr);
  auto multi = Make("multi:softmax", p);
  EXPECT_EQ(multi->CheckLabel(2.0f), nullptr);
  EXPECT_NE(multi->CheckLabel(3.0f), nullptr);
  EXPECT_NE(multi->CheckLabel(1.5f), nullptr);
  EXPECT_NE(multi->CheckLabel(-1.0f), nullptr);
  EXPECT_NE(Make("count:poisson")->CheckLabel(-1.0f), nullptr);
  EXPECT_EQ(Make("count:poisson")->CheckLabel(4.0f), nullptr);
  EXPECT_NE(Make("rank:ndcg")->CheckLabel(-1.0f), nullptr);
  // rank:ndcg's gain 2^label - 1 ends at 31 (XGBoost 3.4.1: "Relevance degrees must be lesser
  // than or equal to 31"); rank:pairwise has no gain and takes any relevance, as XGBoost.
  EXPECT_EQ(Make("rank:ndcg")->CheckLabel(31.0f), nullptr);
  EXPECT_EQ(Make("rank:ndcg")->CheckLabel(31.5f), nullptr);  // cast to 31, as 1.7
  EXPECT_NE(Make("rank:ndcg")->CheckLabel(32.0f), nullptr);
  EXPECT_NE(Make("rank:ndcg")->CheckLabel(1e30f), nullptr);
  EXPECT_EQ(Make("rank:pairwise")->CheckLabel(40.0f), nullptr);
  EXPECT_THROW(Make("rank:ndcg")->GetGradient(LabelRows({40.0f, 0.0f}), {0.0f, 0.0f}, 0, &out),
               Error);
  // GetGradient refuses bad labels too.
  EXPECT_THROW(Make("binary:logistic")->GetGradient(LabelRows({2.0f}), {0.0f}, 0, &out), Error);
  EXPECT_THROW(multi->GetGradient(LabelRows({3.0f}), {0.0f, 0.0f, 0.0f}, 0, &out), Error);
}

TEST(Objective, DefaultMetricsAsXGBoost17) {
  Params p;
  p.num_class = 2;
  EXPECT_EQ(Make("reg:squarederror")->DefaultMetric(), "rmse");
  EXPECT_EQ(Make("reg:logistic")->DefaultMetric(), "rmse");
  EXPECT_EQ(Make("binary:logistic")->DefaultMetric(), "logloss");
  EXPECT_EQ(Make("binary:logitraw")->DefaultMetric(), "logloss");
  EXPECT_EQ(Make("multi:softmax", p)->DefaultMetric(), "mlogloss");
  EXPECT_EQ(Make("multi:softprob", p)->DefaultMetric(), "mlogloss");
  EXPECT_EQ(Make("count:poisson")->DefaultMetric(), "poisson-nloglik");
  EXPECT_EQ(Make("rank:pairwise")->DefaultMetric(), "ndcg");
  EXPECT_EQ(Make("rank:ndcg")->DefaultMetric(), "ndcg");
  EXPECT_EQ(Make("rank:map")->DefaultMetric(), "map@32");
}

TEST(Objective, UnknownNameListsAllowed) {
  try {
    Make("binary:logistc");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("binary:logistic"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank:ndcg"), std::string::npos) << e.what();
  }
}

TEST(Objective, PairwiseTwoItems) {
  // Labels {1, 0}: both items draw the other one, so the pair (pos 0, neg 1) counts twice.
  // Each: p = sigmoid(0) = 0.5, g = -0.5, h = 0.25 -> pos grad 2 * -0.5, hess 2 * 2 * 0.25.
  auto g = Grad(*Make("rank:pairwise"), LabelRows({1.0f, 0.0f}), {0.0f, 0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, -1.0f);
  EXPECT_FLOAT_EQ(g[0].hess, 1.0f);
  EXPECT_FLOAT_EQ(g[1].grad, 1.0f);
  EXPECT_FLOAT_EQ(g[1].hess, 1.0f);
}

TEST(Objective, PairwiseGroupWeights) {
  // Two groups weighted 1 and 3: normalisation 2 / 4 scales them to 0.5 and 1.5.
  auto g =
      Grad(*Make("rank:pairwise"), LabelRows({1.0f, 0.0f, 0.0f, 1.0f}, {1.0f, 3.0f}, {0, 2, 4}),
           {0.0f, 0.0f, 0.0f, 0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, -0.5f);
  EXPECT_FLOAT_EQ(g[0].hess, 0.5f);
  EXPECT_FLOAT_EQ(g[1].grad, 0.5f);
  EXPECT_FLOAT_EQ(g[2].grad, 1.5f);
  EXPECT_FLOAT_EQ(g[3].grad, -1.5f);
  EXPECT_FLOAT_EQ(g[3].hess, 1.5f);
  // One label throughout a group: no pairs.
  g = Grad(*Make("rank:pairwise"), LabelRows({2.0f, 2.0f, 2.0f}), {0.3f, 0.1f, 0.2f});
  for (const auto& gp : g) EXPECT_EQ(gp.grad, 0.0f);
}

TEST(Objective, NdcgDeltaWeight) {
  // Labels {1, 0}, preds {1, 0}: IDCG = 1; swapping ranks 0 and 1 changes DCG by
  // 1 - 1/log2(3) = 0.3690702. p = sigmoid(1) = 0.7310586, g = -0.2689414, h = 0.1966119.
  auto g = Grad(*Make("rank:ndcg"), LabelRows({1.0f, 0.0f}), {1.0f, 0.0f});
  EXPECT_NEAR(g[0].grad, 2 * -0.2689414 * 0.3690702, 1e-6);
  EXPECT_NEAR(g[0].hess, 2 * 2 * 0.3690702 * 0.1966119, 1e-6);
  EXPECT_NEAR(g[1].grad, 2 * 0.2689414 * 0.3690702, 1e-6);
}

TEST(Objective, RankGradientsSumToZero) {
  // Every pair adds g to one item and -g to the other.
  auto g = Grad(*Make("rank:ndcg"), LabelRows({2, 1, 0, 1, 3}), {0.5f, -0.1f, 0.3f, 0.9f, 0.0f});
  double sum = 0.0;
  for (const auto& gp : g) sum += gp.grad;
  EXPECT_NEAR(sum, 0.0, 1e-6);
  EXPECT_LT(g[4].grad, 0.0f);  // the most relevant item is pushed up
}

// Ranking data with groups of 1..40 items, labels 0..4, from a fixed LCG.
DataSet RandomRankData(std::vector<float>* preds) {
  uint64_t s = 12345;
  auto next = [&s] { return (s = s * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  std::vector<float> labels;
  std::vector<uint32_t> gptr{0};
  for (int g = 0; g < 300; ++g) {
    const int n = 1 + static_cast<int>(next() % 40);
    for (int i = 0; i < n; ++i) {
      labels.push_back(static_cast<float>(next() % 5));
      preds->push_back(static_cast<float>(next() % 1000) / 100.0f - 5.0f);
    }
    gptr.push_back(static_cast<uint32_t>(labels.size()));
  }
  return LabelRows(labels, {}, gptr);
}

TEST(Objective, RankGradientsIndependentOfThreads) {
  std::vector<float> preds;
  DataSet d = RandomRankData(&preds);
  for (const char* name : {"rank:pairwise", "rank:ndcg"}) {
    std::vector<std::vector<GradPair>> results;
    for (int threads : {1, 2, 4}) {
      omp_set_num_threads(threads);
      Params p;
      p.nthread = threads;
      results.push_back(Grad(*Make(name, p), d, preds, 3));
    }
    for (size_t r = 1; r < results.size(); ++r) {
      ASSERT_EQ(results[r].size(), results[0].size());
      EXPECT_EQ(
          std::memcmp(results[r].data(), results[0].data(), results[0].size() * sizeof(GradPair)),
          0)
          << name;
    }
    // Another round draws other pairs.
    auto other = Grad(*Make(name), d, preds, 4);
    EXPECT_NE(std::memcmp(other.data(), results[0].data(), other.size() * sizeof(GradPair)), 0);
  }
}

// XGBoost 1.7.4's CPU rank:pairwise gradients with one thread, written as its rank_obj.cu does
// (std::minstd_rand seeded (iter + 1) * 1111, std::uniform_int_distribution<unsigned> per item),
// unweighted groups: the reference ringboost's draws must reproduce bit for bit.
std::vector<GradPair> XGBoostPairwise(const DataSet& d, const std::vector<float>& preds, int iter) {
  std::vector<GradPair> out(preds.size());
  std::minstd_rand rnd((iter + 1) * 1111);
  for (std::size_t k = 0; k + 1 < d.group_ptr.size(); ++k) {
    struct Item {
      float pred, label;
      unsigned rindex;
    };
    std::vector<Item> lst;
    for (unsigned j = d.group_ptr[k]; j < d.group_ptr[k + 1]; ++j) {
      lst.push_back({preds[j], d.label[j], j});
    }
    std::stable_sort(lst.begin(), lst.end(),
                     [](const Item& a, const Item& b) { return a.pred > b.pred; });
    std::vector<std::pair<float, unsigned>> rec;
    for (unsigned i = 0; i < lst.size(); ++i) rec.push_back({lst[i].label, i});
    std::stable_sort(rec.begin(), rec.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::pair<unsigned, unsigned>> pairs;  // (pos, neg) list indices
    for (unsigned i = 0; i < rec.size();) {
      unsigned j = i + 1;
      while (j < rec.size() && rec[j].first == rec[i].first) ++j;
      const unsigned nleft = i, nright = static_cast<unsigned>(rec.size() - j);
      for (unsigned pid = i; nleft + nright != 0 && pid < j; ++pid) {
        unsigned r = std::uniform_int_distribution<unsigned>(0, nleft + nright - 1)(rnd);
        if (r < nleft) {
          pairs.push_back({rec[r].second, rec[pid].second});
        } else {
          pairs.push_back({rec[pid].second, rec[r + j - i].second});
        }
      }
      i = j;
    }
    for (const auto& [pos, neg] : pairs) {
      const float p = Sigmoid(lst[pos].pred - lst[neg].pred);
      const float g = p - 1.0f, h = std::max(p * (1.0f - p), 1e-16f);
      out[lst[pos].rindex].grad += g;
      out[lst[pos].rindex].hess += 2.0f * h;
      out[lst[neg].rindex].grad += -g;
      out[lst[neg].rindex].hess += 2.0f * h;
    }
  }
  return out;
}

TEST(Objective, RankPairsAreXGBoostsOneThreadDraws) {
  std::vector<float> preds;
  const DataSet d = RandomRankData(&preds);
  for (int iter : {0, 1, 7}) {
    for (int threads : {1, 3}) {
      Params p;
      p.nthread = threads;
      const std::vector<GradPair> got = Grad(*Make("rank:pairwise", p), d, preds, iter);
      const std::vector<GradPair> want = XGBoostPairwise(d, preds, iter);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].grad, want[i].grad) << "row " << i << " iter " << iter;
        ASSERT_EQ(got[i].hess, want[i].hess) << "row " << i << " iter " << iter;
      }
    }
  }
}

// The trees' max_delta_step when the user sets none comes from the objective: XGBoost's
// count:poisson has its own 0.7, every other objective 0.
TEST(Objective, DefaultMaxDeltaStepIsPoissonsOwn) {
  EXPECT_EQ(Make("count:poisson")->DefaultMaxDeltaStep(), 0.7f);
  for (const char* name : {"reg:squarederror", "binary:logistic", "rank:pairwise"}) {
    EXPECT_EQ(Make(name)->DefaultMaxDeltaStep(), 0.0f) << name;
  }
}

}  // namespace
}  // namespace ringboost
