// Metrics on tiny inputs with values derived by hand, and the two-worker reduction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "label_rows.h"
#include "metric/metric.h"
#include "rabit/communicator.h"

namespace ringboost {
namespace {

using test::LabelRows;

double Eval(const std::string& name, const std::vector<float>& preds, const DataSet& d,
            int num_groups = 1) {
  auto comm = rabit::MakeLocalCommunicator();
  return Metric::Create(name, Params())->Eval(preds, num_groups, d, comm.get());
}

TEST(Metric, Rmse) {
  // Squared errors 0, 1, 4.
  EXPECT_DOUBLE_EQ(Eval("rmse", {1, 3, 5}, LabelRows({1, 2, 3})), std::sqrt(5.0 / 3));
  // Weighted (0 * 1 + 1 * 2 + 4 * 1) / 4.
  EXPECT_DOUBLE_EQ(Eval("rmse", {1, 3, 5}, LabelRows({1, 2, 3}, {1, 2, 1})), std::sqrt(1.5));
}

TEST(Metric, Mae) {
  EXPECT_DOUBLE_EQ(Eval("mae", {2, 0}, LabelRows({1, 2})), 1.5);
  EXPECT_DOUBLE_EQ(Eval("mae", {2, 0}, LabelRows({1, 2}, {3, 1})), 1.25);  // (3 + 2) / 4
}

TEST(Metric, LoglossClipsProbabilities) {
  EXPECT_NEAR(Eval("logloss", {0.5f, 0.5f}, LabelRows({1, 0})), std::log(2.0), 1e-6);
  // p = 1 for a positive costs -log(1 - 1e-16) = 0; p = 0 costs -log(1e-16) = 36.84136.
  EXPECT_NEAR(Eval("logloss", {1.0f}, LabelRows({1})), 0.0, 1e-9);
  EXPECT_NEAR(Eval("logloss", {0.0f}, LabelRows({1})), 36.84136, 1e-4);
}

// Margins outside [0, 1] (binary:logitraw's default metric), XGBoost 3.x's xlogy(-y, p) +
// xlogy(-(1 - y), 1 - p) with each log's argument at least 1e-16 and a term of coefficient 0
// dropped: y = 1 at p = 2 costs -log 2 + 0, y = 0 at p = -1 costs 0 - log 2; the other way round
// each costs -log(1e-16) = 36.84136; y = 0.5 at p = 2 costs -log(2) / 2 - log(1e-16) / 2.
TEST(Metric, LoglossOutsideTheUnitInterval) {
  EXPECT_NEAR(Eval("logloss", {2.0f, -1.0f}, LabelRows({1, 0})), -std::log(2.0), 1e-6);
  EXPECT_NEAR(Eval("logloss", {-1.0f, 2.0f}, LabelRows({1, 0})), 36.84136, 1e-4);
  EXPECT_NEAR(Eval("logloss", {2.0f}, LabelRows({0.5f})), (36.84136 - std::log(2.0)) / 2, 1e-4);
}

TEST(Metric, ErrorAndThreshold) {
  const std::vector<float> preds{0.2f, 0.6f, 0.8f, 0.4f};
  const DataSet d = LabelRows({0, 0, 1, 1});
  EXPECT_DOUBLE_EQ(Eval("error", preds, d), 0.5);       // rows 1 and 3 wrong at 0.5
  EXPECT_DOUBLE_EQ(Eval("error@0.7", preds, d), 0.25);  // only row 3 wrong at 0.7
  EXPECT_EQ(Metric::Create("error@0.7", Params())->Name(), "error@0.7");
  EXPECT_EQ(Metric::Create("error@0.5", Params())->Name(), "error");
  EXPECT_THROW(Metric::Create("error@abc", Params()), Error);
  // "error@" with no threshold: XGBoost 3.2.0/3.4.1 stop ("unable to parse the threshold value
  // for the error metric"), where ringboost took 0.5; a NaN threshold made every row count as
  // its label (error@nan printed the mean label).
  for (const char* name : {"error@", "error@nan", "error@-nan"}) {
    try {
      Metric::Create(name, Params());
      FAIL() << "no error for " << name;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the threshold must be a number"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_DOUBLE_EQ(Eval("error@inf", preds, d), 0.5);  // no prediction above: the mean label
}

TEST(Metric, PoissonNloglik) {
  // lgamma(1) + 1 - 0 = 1 and lgamma(3) + 2 - 2 ln 2 = 2 - ln 2.
  EXPECT_NEAR(Eval("poisson-nloglik", {1, 2}, LabelRows({0, 2})), (1 + 2 - std::log(2.0)) / 2,
              1e-6);
  // A fractional label, to the bit: XGBoost 3.4.1 prints 0.76606255769729614 for this row (its
  // lgamma in double, rounded to float); lgammaf gave 0.7660626173019409, an ulp above.
  EXPECT_EQ(Eval("poisson-nloglik", {0.3252235f}, LabelRows({0.5f})), 0.76606255769729614);
}

TEST(Metric, MultiClass) {
  const std::vector<float> probs{0.2f, 0.5f, 0.3f, 0.7f, 0.2f, 0.1f};
  const DataSet d = LabelRows({1, 2});
  EXPECT_NEAR(Eval("mlogloss", probs, d, 3), (std::log(2.0) + std::log(10.0)) / 2, 1e-6);
  EXPECT_DOUBLE_EQ(Eval("merror", probs, d, 3), 0.5);  // row 1 predicts class 0, not 2
  EXPECT_NEAR(Eval("mlogloss", probs, LabelRows({1, 2}, {3, 1}), 3),
              (3 * std::log(2.0) + std::log(10.0)) / 4, 1e-6);
  EXPECT_THROW(Eval("mlogloss", probs, LabelRows({1, 3}), 3), Error);
  EXPECT_THROW(Eval("rmse", probs, d, 3), Error);  // elementwise metrics need one output
}

// Every weight 0: XGBoost 1.7.4, 3.2.0 and 3.4.1 print -nan for mlogloss and merror (0 / 0); a
// printed 0 would read as a perfect score.
TEST(Metric, MultiClassAllWeightsZero) {
  const std::vector<float> probs{0.2f, 0.5f, 0.3f, 0.7f, 0.2f, 0.1f};
  EXPECT_TRUE(std::isnan(Eval("mlogloss", probs, LabelRows({1, 2}, {0, 0}), 3)));
  EXPECT_TRUE(std::isnan(Eval("merror", probs, LabelRows({1, 2}, {0, 0}), 3)));
}

TEST(Metric, BinaryAuc) {
  // Positives 0.8 and 0.35, negatives 0.4 and 0.1: 3 of 4 pairs ordered.
  const DataSet d = LabelRows({0, 0, 1, 1});
  EXPECT_DOUBLE_EQ(Eval("auc", {0.1f, 0.4f, 0.35f, 0.8f}, d), 0.75);
  // Tie: positive 0.5 against negatives 0.5, 0.5 counts half each: (2 + 0.5 + 0.5) / 4.
  EXPECT_DOUBLE_EQ(Eval("auc", {0.5f, 0.5f, 0.5f, 0.9f}, LabelRows({1, 0, 0, 1})), 0.75);
  // Weights 1, 2, 1, 1: ordered pair weight 1*1 + 1*2 + 1*1 = 4 of 2 * 3 = 6.
  EXPECT_NEAR(Eval("auc", {0.1f, 0.4f, 0.35f, 0.8f}, LabelRows({0, 0, 1, 1}, {1, 2, 1, 1})),
              4.0 / 6, 1e-12);
  EXPECT_TRUE(std::isnan(Eval("auc", {0.1f, 0.2f}, LabelRows({1, 1}))));
}

// 5000 rows (the radix-sort path) on 37 distinct scores, so nearly every row ties: AUC equals the
// pair count with ties counted half, computed directly.
TEST(Metric, AucOfManyTiedRowsEqualsPairCount) {
  std::vector<float> preds, labels;
  uint32_t s = 1;
  for (int i = 0; i < 5000; ++i) {
    s = s * 1664525u + 1013904223u;
    preds.push_back(static_cast<float>((s >> 8) % 37) / 37.0f);
    labels.push_back(((s >> 20) % 7) < 3 ? 1.0f : 0.0f);
  }
  double neg_at[38] = {0}, pos_at[38] = {0};
  for (int i = 0; i < 5000; ++i) {
    int b = static_cast<int>(std::lround(preds[i] * 37.0f));
    (labels[i] > 0.5f ? pos_at : neg_at)[b] += 1;
  }
  double ordered = 0, positives = 0, negatives = 0;
  for (int b = 0; b < 37; ++b) {
    ordered += pos_at[b] * (negatives + 0.5 * neg_at[b]);  // negatives strictly below, half ties
    positives += pos_at[b];
    negatives += neg_at[b];
  }
  EXPECT_NEAR(Eval("auc", preds, LabelRows(labels)), ordered / (positives * negatives), 1e-12);
}

// The binary curve as XGBoost 1.7 computes it, the rows ordered by a comparison sort (stable,
// largest prediction first): the reference for the radix-sorted, threaded one.
double ReferenceAuc(const std::vector<float>& preds, const std::vector<float>& labels,
                    const std::vector<float>& weights, bool roc) {
  std::vector<size_t> idx(preds.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  // NaN first (the metric's place for it), a block of its own (NaN != NaN).
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const bool nan_a = std::isnan(preds[a]), nan_b = std::isnan(preds[b]);
    return nan_a != nan_b ? nan_a : preds[a] > preds[b];
  });
  auto w = [&](size_t i) { return weights.empty() ? 1.0f : weights[i]; };
  double total_pos = 0;
  for (size_t i = 0; i < labels.size(); ++i) total_pos += w(i) * labels[i];
  auto area = [&](double fp0, double fp1, double tp0, double tp1) {
    if (roc) return std::abs(fp0 - fp1) * (tp0 + tp1) * 0.5f;
    // XGBoost's interpolated PR block (detail::CalcDeltaPRAUC).
    const double pr0 = tp0 / total_pos, pr1 = tp1 / total_pos;
    double a = 1.0, b = 0.0;
    if (tp1 != tp0) {
      const double h = (fp1 - fp0) / (tp1 - tp0);
      a = h + 1;
      b = (fp0 - h * tp0) / total_pos;
    }
    if (b != 0.0) return (pr1 - pr0 - b / a * (std::log(a * pr1 + b) - std::log(a * pr0 + b))) / a;
    return (pr1 - pr0) / a;
  };
  float label = labels[idx[0]];
  double fp = (1.0 - label) * w(idx[0]), tp = label * w(idx[0]);
  double fp0 = 0, tp0 = 0, auc = 0;
  for (size_t i = 1; i < idx.size(); ++i) {
    if (preds[idx[i]] != preds[idx[i - 1]]) {
      auc += area(fp0, fp, tp0, tp);
      fp0 = fp;
      tp0 = tp;
    }
    label = labels[idx[i]];
    fp += (1.0f - label) * w(idx[i]);
    tp += label * w(idx[i]);
  }
  auc += area(fp0, fp, tp0, tp);
  if (fp <= 0.0 || tp <= 0.0) return std::nan("");
  return roc ? auc / (fp * tp) : auc;
}

// 40,000 rows (two and three threads' shares of the sort) on few distinct scores, so most rows
// tie, -0.0 beside +0.0 (one value), labels 0 and 1 only (auc then counts pairs over the two
// classes sorted apart) or with fractional ones, with and without weights, unit weights given
// (counted as none), a NaN prediction; and one class only: auc and aucpr equal the
// comparison-sorted curve's to the bit for 1 to 4 threads. Each metric object evaluates every
// case in turn (its buffers are kept from call to call).
TEST(Metric, AucIsTheComparisonSortsToTheBitForAnyThreads) {
  auto comm = rabit::MakeLocalCommunicator();
  std::map<std::pair<std::string, int>, std::unique_ptr<Metric>> metrics;
  auto eval = [&](const std::string& name, const std::vector<float>& preds, const DataSet& d,
                  int nthread) {
    std::unique_ptr<Metric>& m = metrics[{name, nthread}];
    if (!m) {
      Params p;
      p.nthread = nthread;
      m = Metric::Create(name, p);
    }
    return m->Eval(preds, 1, d, comm.get());
  };
  std::mt19937 rng(11);
  enum Weighting { kNone, kRandom, kUnit };
  for (int distinct : {3, 1000, 1 << 24}) {
    for (Weighting weighting : {kNone, kRandom, kUnit}) {
      for (int labelling : {0, 1, 2, 3}) {  // one class, 0/1, 0/1/0.25, 0/1 and a NaN score
        const bool one_class = labelling == 0;
        const bool weighted = weighting != kNone;
        std::vector<float> preds, labels, weights;
        std::uniform_int_distribution<int> score(0, distinct - 1), pick(0, 9);
        std::uniform_real_distribution<float> weight(0.0f, 3.0f);
        for (int i = 0; i < 40000; ++i) {
          const int s = score(rng);
          preds.push_back(s == 0 ? (i % 2 ? -0.0f : 0.0f)
                                 : static_cast<float>(s) / distinct - 0.5f);
          const int l = pick(rng);
          labels.push_back(one_class ? 1.0f
                           : l < 4   ? 1.0f
                           : l < 9   ? 0.0f
                                     : (labelling == 2 ? 0.25f : 1.0f));
          if (weighted) weights.push_back(weighting == kUnit ? 1.0f : weight(rng));
        }
        if (labelling == 3) preds[12345] = std::nanf("");
        const DataSet d = LabelRows(labels, weights);
        for (bool roc : {true, false}) {
          const double want = ReferenceAuc(preds, labels, weights, roc);
          for (int nthread : {1, 2, 3, 4}) {
            const double got = eval(roc ? "auc" : "aucpr", preds, d, nthread);
            if (std::isnan(want)) {
              EXPECT_TRUE(std::isnan(got)) << distinct << " " << weighted << " " << roc;
            } else {
              EXPECT_EQ(std::memcmp(&got, &want, sizeof(double)), 0)
                  << got << " vs " << want << ": " << distinct << " scores, weighted " << weighted
                  << ", roc " << roc << ", " << nthread << " threads";
            }
          }
        }
      }
    }
  }
  // Then a small set on the same objects: 3 of 4 pairs ordered, as Metric.BinaryAuc.
  for (int nthread : {1, 2, 3, 4}) {
    EXPECT_DOUBLE_EQ(eval("auc", {0.1f, 0.4f, 0.35f, 0.8f}, LabelRows({0, 0, 1, 1}), nthread),
                     0.75);
  }
}

TEST(Metric, AucPr) {
  EXPECT_DOUBLE_EQ(Eval("aucpr", {0.9f, 0.1f}, LabelRows({1, 0})), 1.0);
  // Recall 0 -> 0.5 at precision 1, then 0.5 -> 1 interpolated with fp = 1:
  // 0.5 + integral_{0.5}^{1} 2r / (2r + 1) dr = 0.5 + 0.5 - 0.5 ln 1.5.
  EXPECT_NEAR(Eval("aucpr", {0.9f, 0.8f, 0.7f}, LabelRows({1, 0, 1})), 1.0 - 0.5 * std::log(1.5),
              1e-12);
}

// A NaN AUC says why, once per eval set (XGBoost 3.x warns "Dataset is empty, or contains only
// positive or negative samples." every round; ringboost printed nan without a word).
TEST(Metric, NanAucIsExplainedOnce) {
  auto comm = rabit::MakeLocalCommunicator();
  const auto auc = Metric::Create("auc", Params());
  DataSet positives = LabelRows({1, 1});
  positives.name = "pos.libsvm";
  testing::internal::CaptureStderr();
  EXPECT_TRUE(std::isnan(auc->Eval({0.3f, 0.7f}, 1, positives, comm.get())));
  EXPECT_TRUE(std::isnan(auc->Eval({0.3f, 0.7f}, 1, positives, comm.get())));
  EXPECT_EQ(auc->Eval({0.3f, 0.7f}, 1, LabelRows({0, 1}), comm.get()), 1.0);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("warning: auc of 'pos.libsvm' is nan: it has no rows, or only positive or "
                     "only negative ones"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("is nan"), err.rfind("is nan")) << err;  // once
}

TEST(Metric, MultiClassAuc) {
  // Class 0: scores {0.8, 0.1, 0.1} for labels {0, 1, 2}; each class is perfectly separated.
  const std::vector<float> probs{0.8f, 0.1f, 0.1f, 0.1f, 0.8f, 0.1f, 0.1f, 0.1f, 0.8f};
  EXPECT_DOUBLE_EQ(Eval("auc", probs, LabelRows({0, 1, 2}), 3), 1.0);
}

TEST(Metric, RankingAucAveragesGroups) {
  // Group 1 fully ordered: 1. Group 2 (labels 1,0,0; preds 0.1,0.2,0.2): pairs 0, 0 and the
  // tie between the two zeros 0.5 -> 0.5 / 3. Group 3 has 2 items and is skipped.
  const DataSet d = LabelRows({2, 1, 0, 1, 0, 0, 1, 0}, {}, {0, 3, 6, 8});
  EXPECT_NEAR(Eval("auc", {0.3f, 0.2f, 0.1f, 0.1f, 0.2f, 0.2f, 0.5f, 0.1f}, d), (1.0 + 0.5 / 3) / 2,
              1e-12);
}

TEST(Metric, Ndcg) {
  // Preds order labels as 0, 1, 2: DCG = 1/log2(3) + 3/log2(4); IDCG = 3 + 1/log2(3).
  const std::vector<float> preds{0.1f, 0.9f, 0.5f};
  const DataSet d = LabelRows({2, 0, 1});
  const double inv_log3 = 1.0 / std::log2(3.0);
  EXPECT_NEAR(Eval("ndcg", preds, d), (inv_log3 + 1.5) / (3 + inv_log3), 1e-12);
  EXPECT_NEAR(Eval("ndcg@2", preds, d), inv_log3 / (3 + inv_log3), 1e-12);
  // A second group without relevant items scores 1, or 0 with '-'.
  const DataSet two = LabelRows({2, 0, 1, 0, 0}, {}, {0, 3, 5});
  const std::vector<float> p2{0.1f, 0.9f, 0.5f, 0.3f, 0.4f};
  const double g1 = (inv_log3 + 1.5) / (3 + inv_log3);
  EXPECT_NEAR(Eval("ndcg", p2, two), (g1 + 1) / 2, 1e-12);
  EXPECT_NEAR(Eval("ndcg-", p2, two), g1 / 2, 1e-12);
  EXPECT_NEAR(Eval("ndcg@5-", p2, two), g1 / 2, 1e-12);
}

// ndcg's gain 2^label - 1 exists for labels 0 to 31 (an int cast first, as 1.7): 31 is the
// largest, and 32 or a negative label is an error, as XGBoost 3.x's "Relevance degrees must be
// lesser than or equal to 31" (1.7 shifted out of range and reported values above 1).
TEST(Metric, NdcgLabelRange) {
  // Labels 31, 0 ordered 0, 31: DCG (2^31 - 1) / log2(3) over IDCG 2^31 - 1.
  EXPECT_NEAR(Eval("ndcg", {0.1f, 0.9f}, LabelRows({31, 0})), 1 / std::log2(3.0), 1e-12);
  for (float bad : {32.0f, 40.0f, 1e30f, -1.0f}) {
    try {
      Eval("ndcg@3", {0.1f, 0.9f}, LabelRows({bad, 0}));
      FAIL() << "no error for label " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("ndcg@3 needs relevance labels from 0 to 31"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Metric, Map) {
  // XGBoost 3.x's: hits at ranks 1 and 3: (1/1 + 2/3) / 2.
  const DataSet d = LabelRows({1, 0, 1});
  EXPECT_NEAR(Eval("map", {0.9f, 0.8f, 0.7f}, d), (1 + 2.0 / 3) / 2, 1e-12);
  // map@k divides by min(relevant items, k): 1.7 divided {1, 1, 1}'s top 2 by all 3 hits (2/3).
  EXPECT_DOUBLE_EQ(Eval("map@2", {0.9f, 0.8f, 0.7f}, LabelRows({1, 1, 1})), 1.0);
  EXPECT_DOUBLE_EQ(Eval("map@1", {0.9f, 0.8f, 0.7f}, LabelRows({0, 1, 1})), 0.0);
  EXPECT_NEAR(Eval("map@2", {0.9f, 0.8f, 0.7f}, LabelRows({0, 1, 1})), 0.5 / 2, 1e-12);
  // Groups without a relevant item score 1, or 0 with '-'.
  EXPECT_DOUBLE_EQ(Eval("map", {0.9f, 0.8f}, LabelRows({0, 0})), 1.0);
  EXPECT_DOUBLE_EQ(Eval("map-", {0.9f, 0.8f}, LabelRows({0, 0})), 0.0);
  EXPECT_DOUBLE_EQ(Eval("map@3-", {0.9f, 0.8f}, LabelRows({0, 0})), 0.0);
  // Tied predictions keep row order: the relevant second row is at rank 2.
  EXPECT_DOUBLE_EQ(Eval("map", {0.5f, 0.5f}, LabelRows({0, 1})), 0.5);
  // Groups weighted: (5/6 x 1 + 1/2 x 3 + 1 x 0) / 4 with map, the empty third group 0 in map-.
  const DataSet w = LabelRows({1, 0, 1, 0, 1, 0}, {1.0f, 3.0f, 2.0f}, {0, 3, 5, 6});
  const std::vector<float> pw{0.9f, 0.8f, 0.7f, 0.9f, 0.1f, 0.3f};
  EXPECT_NEAR(Eval("map", pw, w), (5.0 / 6 + 1.5 + 2) / 6, 1e-12);
  EXPECT_NEAR(Eval("map-", pw, w), (5.0 / 6 + 1.5) / 6, 1e-12);
}

TEST(Metric, MapNeedsBinaryLabels) {
  try {
    Eval("map@5", {0.9f, 0.8f}, LabelRows({2, 0}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("map@5 needs labels 0 or 1"), std::string::npos)
        << e.what();
  }
  // XGBoost's tolerance: within 1e-6 of 0 or 1 is taken, as it is.
  EXPECT_NEAR(Eval("map", {0.9f}, LabelRows({0.9999995f})), 0.9999995, 1e-7);
}

TEST(Metric, Names) {
  for (const char* name : {"rmse", "mae", "logloss", "error", "error@0.7", "auc", "aucpr",
                           "mlogloss", "merror", "poisson-nloglik", "ndcg", "ndcg@5", "ndcg@5-",
                           "ndcg-", "map", "map@3", "map-", "map@3-"}) {
    EXPECT_EQ(Metric::Create(name, Params())->Name(), name);
  }
  EXPECT_TRUE(Metric::Create("auc", Params())->Maximize());
  EXPECT_TRUE(Metric::Create("ndcg@5", Params())->Maximize());
  EXPECT_FALSE(Metric::Create("logloss", Params())->Maximize());
  try {
    Metric::Create("rmsel", Params());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ndcg@k"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Metric::Create("rmse@3", Params()), Error);
  EXPECT_THROW(Metric::Create("ndcg@x", Params()), Error);
}

// A metric of one prediction a row given several says where they come from and what fits them;
// it named multi:* only, also for reg:quantileerror's one a quantile_alpha.
TEST(Metric, SeveralPredictionsARowNameTheMetricsThatFit) {
  auto comm = rabit::MakeLocalCommunicator();
  const DataSet d = LabelRows({1, 2});
  const std::vector<float> preds = {0, 1, 2, 3};
  struct Case {
    const char* objective;
    const char* advice;
  };
  for (const Case& c :
       {Case{
            "reg:quantileerror",
            "2 per row (reg:quantileerror gives one per quantile_alpha); use eval_metric=quantile"},
        Case{"multi:softprob",
             "2 per row (multi:softprob gives one per class); use mlogloss, "
             "merror, or auc or aucpr (one class against the rest)"}}) {
    Params params;
    params.objective = c.objective;
    try {
      Metric::Create("mae", params)->Eval(preds, 2, d, comm.get());
      FAIL() << "no error for " << c.objective;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.advice), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("multi:*"), std::string::npos) << e.what();
    }
  }
}

// k is a whole number from 1 to 2^32 - 1: XGBoost 3.x refuses ndcg@0 and map@0 (and 2^32, which
// it reads as 0); ringboost read @0 as an empty top (every group scoring 1) and 2^32 as 0.
TEST(Metric, RankCutoffMustBePositive) {
  for (const char* name : {"ndcg@0", "map@0", "pre@0", "ndcg@0-", "ndcg@4294967296",
                           "map@18446744073709551617", "pre@-1", "ndcg@ 3"}) {
    try {
      Metric::Create(name, Params());
      FAIL() << "no error for " << name;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("whole number k from 1 to 4294967295"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(Metric::Create("ndcg@4294967295", Params())->Name(), "ndcg@4294967295");
  EXPECT_EQ(Metric::Create("pre@1", Params())->Name(), "pre@1");
}

// ---- two workers as two threads sharing one exchange --------------------------------------

// Both ranks deposit bytes, meet, read both deposits, meet again.
class Exchange {
 public:
  std::vector<std::vector<char>> Swap(int rank, const char* data, size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      slot_[rank].assign(data, data + bytes);
    }
    Meet();
    std::vector<std::vector<char>> both;
    {
      std::lock_guard<std::mutex> lock(mu_);
      both = {slot_[0], slot_[1]};
    }
    Meet();
    return both;
  }

 private:
  void Meet() {
    std::unique_lock<std::mutex> lock(mu_);
    const int gen = generation_;
    if (++arrived_ == 2) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation_ != gen; });
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0, generation_ = 0;
  std::vector<char> slot_[2];
};

class TwoRankCommunicator : public rabit::Communicator {
 public:
  TwoRankCommunicator(int rank, Exchange* ex) : rank_(rank), ex_(ex) {}
  int Rank() const override { return rank_; }
  int WorldSize() const override { return 2; }
  std::string Backend() const override { return "test"; }
  Status AllreduceRaw(void* buf, size_t count, rabit::DataType type, rabit::Op op) override {
    auto both = ex_->Swap(rank_, static_cast<char*>(buf), count * rabit::SizeOf(type));
    std::memcpy(buf, both[0].data(), both[0].size());
    rabit::Reduce(buf, both[1].data(), count, type, op);
    return Status::OK();
  }
  Status BroadcastRaw(void* buf, size_t bytes, int root) override {
    auto both = ex_->Swap(rank_, static_cast<char*>(buf), bytes);
    std::memcpy(buf, both[root].data(), bytes);
    return Status::OK();
  }
  Status AllgatherRaw(const void* in, size_t bytes, void* out) override {
    auto both = ex_->Swap(rank_, static_cast<const char*>(in), bytes);
    std::memcpy(out, both[0].data(), bytes);
    std::memcpy(static_cast<char*>(out) + bytes, both[1].data(), bytes);
    return Status::OK();
  }
  Status AllgathervRaw(const void* in, size_t bytes, std::vector<char>* out) override {
    auto both = ex_->Swap(rank_, static_cast<const char*>(in), bytes);
    *out = both[0];
    out->insert(out->end(), both[1].begin(), both[1].end());
    return Status::OK();
  }
  Status TrackerPrint(const std::string&) override { return Status::OK(); }
  Status LoadCheckPoint(std::string*, int* version) override {
    *version = 0;
    return Status::OK();
  }
  Status CheckPoint(const std::string&) override { return Status::OK(); }
  int VersionNumber() const override { return 0; }
  Status Shutdown() override { return Status::OK(); }

 private:
  int rank_;
  Exchange* ex_;
};

// Rows [begin, end) of `d` (group boundaries at begin and end) and their predictions.
DataSet Slice(const DataSet& d, size_t begin, size_t end) {
  std::vector<float> labels(d.label.begin() + begin, d.label.begin() + end);
  std::vector<float> weights;
  if (!d.weight.empty()) weights.assign(d.weight.begin() + begin, d.weight.begin() + end);
  std::vector<uint32_t> groups;
  for (uint32_t g : d.group_ptr) {
    if (g >= begin && g <= end) groups.push_back(g - static_cast<uint32_t>(begin));
  }
  return LabelRows(labels, weights, groups);
}

// The metric over both halves, each half on its own rank, as rank 0 and rank 1 see it.
std::vector<double> EvalOnTwoRanks(const std::string& name, const std::vector<float>& preds,
                                   const DataSet& d, size_t split, int k) {
  Exchange ex;
  std::vector<double> out(2);
  auto worker = [&](int rank) {
    TwoRankCommunicator comm(rank, &ex);
    const size_t begin = rank == 0 ? 0 : split, end = rank == 0 ? split : d.NumRows();
    std::vector<float> p(preds.begin() + begin * k, preds.begin() + end * k);
    out[rank] = Metric::Create(name, Params())->Eval(p, k, Slice(d, begin, end), &comm);
  };
  std::thread t1(worker, 1);
  worker(0);
  t1.join();
  return out;
}

TEST(Metric, TwoWorkersEqualOneProcess) {
  // 40 rows in groups of 4, 5, 6, 5 | 7, 8, 5 (split at row 20), from a fixed LCG.
  uint64_t s = 99;
  auto next = [&s] { return (s = s * 6364136223846793005ULL + 1442695040888963407ULL) >> 40; };
  std::vector<float> labels, weights, preds, probs;
  for (int i = 0; i < 40; ++i) {
    labels.push_back(static_cast<float>(next() % 2));
    weights.push_back(0.5f + static_cast<float>(next() % 4));
    preds.push_back(static_cast<float>(next() % 100) / 100.0f);  // ties included
    float a = 1.0f + next() % 5, b = 1.0f + next() % 5;
    probs.push_back(a / (a + b));
    probs.push_back(b / (a + b));
  }
  const DataSet flat = LabelRows(labels, weights);
  const DataSet grouped = LabelRows(labels, {}, {0, 4, 9, 15, 20, 27, 35, 40});
  for (const char* name : {"rmse", "logloss", "error@0.7", "mae", "auc", "aucpr"}) {
    const double whole = Eval(name, preds, flat);
    for (double v : EvalOnTwoRanks(name, preds, flat, 20, 1)) EXPECT_NEAR(v, whole, 1e-12) << name;
  }
  for (const char* name : {"auc", "aucpr"}) {  // exact: every rank gathers all rows
    const double whole = Eval(name, preds, flat);
    for (double v : EvalOnTwoRanks(name, preds, flat, 13, 1)) EXPECT_EQ(v, whole) << name;
  }
  for (const char* name : {"mlogloss", "merror", "auc"}) {
    const double whole = Eval(name, probs, flat, 2);
    for (double v : EvalOnTwoRanks(name, probs, flat, 20, 2)) EXPECT_NEAR(v, whole, 1e-12) << name;
  }
  for (const char* name : {"ndcg", "ndcg@3-", "map", "map@2", "auc", "aucpr"}) {
    const double whole = Eval(name, preds, grouped);
    for (double v : EvalOnTwoRanks(name, preds, grouped, 20, 1)) {
      EXPECT_NEAR(v, whole, 1e-12) << name;
    }
  }
  // map sums the gathered group scores in data order: the same bits as one process.
  for (const char* name : {"map", "map@2-"}) {
    const double whole = Eval(name, preds, grouped);
    for (double v : EvalOnTwoRanks(name, preds, grouped, 15, 1)) EXPECT_EQ(v, whole) << name;
  }
}

}  // namespace
}  // namespace ringboost
