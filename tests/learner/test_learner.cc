#include <gtest/gtest.h>

#include <cmath>

#include "../tree/tree_builders.h"
#include "common/error.h"
#include "learner/learner.h"
#include "model/xgboost_doc.h"
#include "model/xgboost_format.h"

namespace ringboost {
namespace {

// 600 rows, 4 features, a few missing; label from a fixed rule.
DataSet MakeBinary(uint64_t seed, int n = 600) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  uint64_t s = seed;
  auto next = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<float>((s >> 33) % 10000) / 10000.0f;
  };
  for (int i = 0; i < n; ++i) {
    std::vector<float> r{next(), next(), next(), next()};
    if (next() < 0.1f) r[2] = NAN;
    labels.push_back(r[0] + 0.5f * r[1] > 0.8f || (std::isnan(r[2]) && r[3] > 0.5f) ? 1.f : 0.f);
    rows.push_back(r);
  }
  return test::DenseRows(rows, labels);
}

Params BinaryParams() {
  Params p;
  p.objective = "binary:logistic";
  p.eval_metric = {"logloss", "error"};
  p.max_depth = 4;
  p.eta = 0.3;
  p.nthread = 2;
  return p;
}

std::vector<std::pair<std::string, double>> TrainRounds(Learner* learner, int rounds) {
  std::vector<std::pair<std::string, double>> last;
  for (int i = 0; i < rounds; ++i) {
    learner->UpdateOneRound();
    last = learner->EvalOneRound();
  }
  return last;
}

TEST(Learner, TrainingLowersLossAndNamesMetricsLikeXGBoost) {
  auto comm = rabit::MakeLocalCommunicator();
  Params p = BinaryParams();
  p.eval_train = true;
  Learner learner(p, comm.get());
  std::vector<std::pair<std::string, DataSet>> evals;
  evals.emplace_back("test", MakeBinary(99, 300));
  learner.Setup(MakeBinary(1), std::move(evals), nullptr);
  auto first = TrainRounds(&learner, 1);
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0].first, "test-logloss");
  EXPECT_EQ(first[1].first, "test-error");
  EXPECT_EQ(first[2].first, "train-logloss");
  auto later = TrainRounds(&learner, 9);
  EXPECT_LT(later[2].second, first[2].second);
  EXPECT_LT(later[3].second, 0.1);  // train error
  EXPECT_EQ(learner.model().num_rounds, 10);
  EXPECT_EQ(learner.model().trees.size(), 10u);
}

// eval_metric=auc eval_metric=logloss eval_metric=auc: XGBoost (1.7.4 and 3.4.1) evaluates auc
// once, in its first place ("t-auc ... t-logloss"); ringboost printed it twice.
TEST(Learner, RepeatedMetricIsEvaluatedOnce) {
  auto comm = rabit::MakeLocalCommunicator();
  Params p = BinaryParams();
  p.eval_metric = {"auc", "logloss", "auc", "logloss"};
  Learner learner(p, comm.get());
  std::vector<std::pair<std::string, DataSet>> evals;
  evals.emplace_back("test", MakeBinary(99, 100));
  learner.Setup(MakeBinary(1), std::move(evals), nullptr);
  const auto results = TrainRounds(&learner, 1);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].first, "test-auc");
  EXPECT_EQ(results[1].first, "test-logloss");
}

// An eval set with a feature the training data lacks is refused, as task=pred refuses such data:
// no tree could split on it, and its metrics would silently score that.
TEST(Learner, EvalSetWithMoreFeaturesIsRefused) {
  auto comm = rabit::MakeLocalCommunicator();
  Learner learner(BinaryParams(), comm.get());
  DataSet wide = test::DenseRows({{1, 2, 3, 4, 5}, {0, 1, 0, 1, 0}}, {1, 0});
  wide.name = "wide.csv";
  std::vector<std::pair<std::string, DataSet>> evals;
  evals.emplace_back("test", std::move(wide));
  try {
    learner.Setup(MakeBinary(1), std::move(evals), nullptr);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "eval[test]=wide.csv has 5 features (ids up to 4), but the model is trained on 4 "
              "(the training data's, and model_in's if any): its trees would ignore the others. "
              "Evaluate data with the training data's features (ids below 4; fewer is fine, "
              "absent ones are missing), or train on data with all of them");
  }
}

// The cached margins updated leaf by leaf equal a full prediction with the model.
TEST(Learner, CachedMarginsEqualFullPrediction) {
  auto comm = rabit::MakeLocalCommunicator();
  Params p = BinaryParams();
  p.eval_train = true;
  p.eval_metric = {"logloss"};
  Learner learner(p, comm.get());
  DataSet train = MakeBinary(3);
  std::vector<std::pair<std::string, DataSet>> evals;
  evals.emplace_back("test", MakeBinary(4, 200));
  learner.Setup(train, std::move(evals), nullptr);
  auto cached = TrainRounds(&learner, 5);
  // Recompute logloss from PredictMargin and compare with the cached value.
  for (int set = 0; set < 2; ++set) {
    DataSet d = set == 0 ? MakeBinary(4, 200) : train;
    std::vector<float> m = PredictMargin(learner.model(), d, 0, 2);
    std::vector<float> probs = m;
    learner.objective().EvalTransform(&probs);
    double loss = 0;
    for (std::size_t i = 0; i < probs.size(); ++i) {
      double pr = std::min(std::max<double>(probs[i], 1e-16), 1 - 1e-16);
      loss -= d.label[i] > 0.5f ? std::log(pr) : std::log(1 - pr);
    }
    EXPECT_NEAR(loss / probs.size(), cached[set].second, 1e-6) << cached[set].first;
  }
}

// Training 2 rounds, saving, and continuing 3 more gives the 5-round model: random draws are
// keyed by the absolute round.
TEST(Learner, ContinuedTrainingEqualsOneRun) {
  auto comm = rabit::MakeLocalCommunicator();
  Params p = BinaryParams();
  p.subsample = 0.7;
  p.colsample_bytree = 0.75;
  p.seed = 11;
  Learner full(p, comm.get());
  full.Setup(MakeBinary(5), {}, nullptr);
  TrainRounds(&full, 5);
  Learner first(p, comm.get());
  first.Setup(MakeBinary(5), {}, nullptr);
  TrainRounds(&first, 2);
  Model saved = Model::FromJson(first.model().ToJson(), "memory");
  Learner second(p, comm.get());
  second.Setup(MakeBinary(5), {}, &saved);
  TrainRounds(&second, 3);
  EXPECT_EQ(second.model().ToJson(), full.model().ToJson());
}

// A model to continue from with another number of outputs is the user's mistake, named by key.
TEST(Learner, ContinuingWithAnotherClassCountNamesTheKey) {
  auto comm = rabit::MakeLocalCommunicator();
  Params p = BinaryParams();
  p.objective = "multi:softprob";
  p.num_class = 3;
  p.eval_metric = {"mlogloss"};
  DataSet d = MakeBinary(8);
  for (std::size_t i = 0; i < d.label.size(); i += 3) d.label[i] = 2;
  Learner first(p, comm.get());
  first.Setup(d, {}, nullptr);
  TrainRounds(&first, 1);
  Model saved = first.model();
  p.num_class = 4;
  Learner second(p, comm.get());
  try {
    second.Setup(d, {}, &saved);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has 3 classes, this run's num_class makes 4; set "
                                         "num_class as it was trained"),
              std::string::npos)
        << e.what();
  }
}

// As XGBoost: base_score given with a model to continue from replaces the model's; one not
// given keeps it.
TEST(Learner, BaseScoreGivenWithModelInReplacesTheModels) {
  auto comm = rabit::MakeLocalCommunicator();
  Params p = BinaryParams();
  Learner first(p, comm.get());
  first.Setup(MakeBinary(5), {}, nullptr);
  TrainRounds(&first, 2);
  const Model saved = first.model();
  const float kept = saved.base_score;
  Learner plain(p, comm.get());
  plain.Setup(MakeBinary(5), {}, &saved);
  EXPECT_EQ(plain.model().base_score, kept);
  p.base_score = 0.2;
  p.given["base_score"] = "0.2";
  Learner second(p, comm.get());
  second.Setup(MakeBinary(5), {}, &saved);
  EXPECT_EQ(second.model().base_score, 0.2f);
  EXPECT_FLOAT_EQ(second.model().base_margin, std::log(0.2f / 0.8f));
  // The old trees' margins now start from the new base.
  const DataSet d = MakeBinary(6, 10);
  const std::vector<float> before = PredictMargin(saved, d, 0, 1);
  const std::vector<float> after = PredictMargin(second.model(), d, 0, 1);
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_NEAR(after[i] - before[i], std::log(0.2f / 0.8f) - saved.base_margin, 1e-5);
  }
}

TEST(Learner, MulticlassGrowsOneTreePerClass) {
  auto comm = rabit::MakeLocalCommunicator();
  Params p = BinaryParams();
  p.objective = "multi:softprob";
  p.num_class = 3;
  p.eval_metric = {"mlogloss", "merror"};
  DataSet d = MakeBinary(8);
  for (std::size_t i = 0; i < d.label.size(); ++i) {
    d.label[i] = static_cast<float>(i % 3 == 0 ? 2 : d.label[i]);
  }
  Learner learner(p, comm.get());
  learner.Setup(d, {}, nullptr);
  TrainRounds(&learner, 3);
  EXPECT_EQ(learner.model().trees.size(), 9u);
  EXPECT_EQ(learner.model().tree_group, (std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 2}));
}

// A trained model keeps its objective's parameters in `config`, so that the XGBoost export
// writes them in the objective's block instead of the defaults.
TEST(Learner, ExportCarriesTheObjectivesParameters) {
  auto comm = rabit::MakeLocalCommunicator();
  Params p = BinaryParams();
  p.objective = "reg:tweedie";
  p.tweedie_variance_power = 1.2;
  p.eval_metric = {"rmse"};
  Learner tweedie(p, comm.get());
  tweedie.Setup(MakeBinary(3), {}, nullptr);
  TrainRounds(&tweedie, 2);
  EXPECT_NE(tweedie.model().config.find("tweedie_variance_power=1.2\n"), std::string::npos);
  xgb::Json doc = xgb::Json::parse(ToXGBoostJson(tweedie.model()));
  EXPECT_EQ(doc.at("learner").at("objective").at("tweedie_regression_param"),
            xgb::Json::parse(R"({"tweedie_variance_power":"1.2"})"));
  p.objective = "reg:quantileerror";
  p.quantile_alpha = "[0.1,0.5,0.9]";
  p.eval_metric = {"quantile"};
  Learner quantiles(p, comm.get());
  quantiles.Setup(MakeBinary(3), {}, nullptr);
  TrainRounds(&quantiles, 2);
  doc = xgb::Json::parse(ToXGBoostJson(quantiles.model()));
  EXPECT_EQ(doc.at("learner").at("objective").at("quantile_loss_param").at("quantile_alpha"),
            "[0.1,0.5,0.9]");
  EXPECT_EQ(doc.at("learner").at("learner_model_param").at("num_target"), "3");
  EXPECT_EQ(ReadModelAnyFormat(ToXGBoostJson(quantiles.model()), "q.json").ToJson(),
            quantiles.model().ToJson());
}

}  // namespace
}  // namespace ringboost
