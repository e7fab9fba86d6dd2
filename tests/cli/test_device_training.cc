// device=cuda against device=cpu (the CUDA issue's parity): the same model file, eval log and
// predictions, byte for byte, on agaricus, LightGBM's binary (weighted), multiclass and rank sets,
// generated dense (1M rows) and sparse (missing values) sets, with lossguide, column sampling,
// 16 or 1024 bins, monotone and interaction constraints, categorical features and feature bundles;
// and 2 tcp workers under ringboost-submit sharing the one GPU (histograms reduce-scattered under
// hist_sync=auto) write the model one CPU process writes. Skips with a
// message where there is no CUDA device (or no CUDA build). Each test is meant to take well under
// 20 s on a 16-core machine with an H100.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <fstream>
#include <ostream>
#include <random>
#include <string>

#include "cli_runner.h"
#include "helpers.h"
#include "require_device.h"

namespace ringboost {
namespace {

using test::GeneratedLabel;

// The device the tests compare with the CPU.
constexpr const char* kDevice = "cuda";

// Where two byte strings first differ and the bytes around it (a whole model is too long to print).
std::string FirstDifference(const std::string& a, const std::string& b) {
  std::size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
  const std::size_t from = at < 60 ? 0 : at - 60;
  return "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
         ", first difference at byte " + std::to_string(at) + ":\n  " + a.substr(from, 120) +
         "\n  " + b.substr(from, 120);
}

// The files dir/expected (not empty) and dir/actual hold the same bytes.
void ExpectSameFile(const std::string& dir, const std::string& expected,
                    const std::string& actual) {
  const std::string a = test::ReadFile(dir + "/" + expected),
                    b = test::ReadFile(dir + "/" + actual);
  ASSERT_FALSE(a.empty()) << expected << " is missing or empty";
  EXPECT_TRUE(a == b) << expected << " and " << actual << " differ: " << FirstDifference(a, b);
}

// Trains `args` (a config and key=value overrides) in `dir` on the CPU and on the device; the
// model files, the eval logs and the predictions of test:data must agree byte for byte.
void ExpectSameOnBoth(const std::string& dir, const std::string& args) {
  test::RunResult cpu = test::RunRingboost(dir, "train " + args + " device=cpu model_out=cpu.json");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  test::RunResult gpu =
      test::RunRingboost(dir, "train " + args + " device=" + kDevice + " model_out=device.json");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  ASSERT_FALSE(test::EvalLog(cpu.out).empty()) << cpu.out;
  EXPECT_EQ(test::EvalLog(cpu.out), test::EvalLog(gpu.out));
  ExpectSameFile(dir, "cpu.json", "device.json");
  for (const std::string side : {"cpu", "device"}) {
    test::RunResult pred = test::RunRingboost(
        dir, "predict " + args + " model_in=cpu.json device=" + (side == "cpu" ? "cpu" : kDevice) +
                 " name_pred=pred_" + side + ".txt");
    ASSERT_EQ(pred.exit_code, 0) << pred.err;
  }
  ExpectSameFile(dir, "pred_cpu.txt", "pred_device.txt");
}

// Trains `args` in `dir` in one process on the CPU and with 2 tcp workers on the device under
// ringboost-submit (device=cuda: each worker's local rank modulo the GPU count, so with one GPU
// they share it); the model files and the eval logs must agree byte for byte.
void ExpectTwoDeviceWorkersGiveTheCpuModel(const std::string& dir, const std::string& args) {
  test::RunResult cpu = test::RunRingboost(dir, "train " + args + " device=cpu model_out=cpu.json");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  test::RunResult two =
      test::RunSubmit(dir, 2, "train " + args + " device=" + kDevice + " model_out=two.json");
  ASSERT_EQ(two.exit_code, 0) << two.out << two.err;
  ASSERT_FALSE(test::EvalLog(cpu.out).empty()) << cpu.out;
  EXPECT_EQ(test::EvalLog(cpu.out), test::EvalLog(two.out)) << two.out;
  ExpectSameFile(dir, "cpu.json", "two.json");
}

// Writes dir/g.conf: binary:logistic with auc and logloss on dir/train.txt, which is also the
// eval set and the predicted set. Returns its name, for the command line.
std::string WriteGeneratedConfig(const test::TempDir& dir) {
  test::WriteFile(dir.File("g.conf"),
                  "objective = binary:logistic\neval_metric = auc\neval_metric = logloss\n"
                  "data = \"train.txt\"\neval[train] = \"train.txt\"\ntest:data = \"train.txt\"\n");
  return "g.conf";
}

// One training run: a name for ctest, the key=value overrides it adds and, for SharedSetOnDevice,
// the test::SharedSets() set it trains on.
struct Variant {
  const char* name;
  const char* options;
  const char* set = "";
};
void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }
std::string VariantName(const ::testing::TestParamInfo<Variant>& info) { return info.param.name; }

// A shared set with the CLI tests' config for it (test::SharedSets()), 10 rounds of depth 6.
class SharedSetOnDevice : public ::testing::TestWithParam<Variant> {};

TEST_P(SharedSetOnDevice, ModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteSharedSetConfig(dir.path(), test::FindSharedSet(GetParam().set), 10);
  ExpectSameOnBoth(dir.path(), std::string("c.conf max_depth=6 ") + GetParam().options);
}

INSTANTIATE_TEST_SUITE_P(
    DeviceTraining, SharedSetOnDevice,
    ::testing::Values(
        Variant{"agaricus", "", "agaricus"},
        Variant{"lightgbm_binary", "", "lightgbm_binary"},  // weighted
        Variant{"lightgbm_multiclass", "", "lightgbm_multiclass"},
        Variant{"lightgbm_rank_ndcg", "", "lightgbm_rank"},
        Variant{"lightgbm_rank_pairwise", "objective=rank:pairwise", "lightgbm_rank"},
        Variant{"lightgbm_binary_lossguide", "grow_policy=lossguide max_leaves=31 max_depth=0",
                "lightgbm_binary"},
        Variant{"lightgbm_multiclass_colsample",
                "colsample_bytree=0.8 colsample_bylevel=0.7 colsample_bynode=0.6 seed=3",
                "lightgbm_multiclass"},
        // Low-bit gradients on sparse data (the exact cells) and multiclass.
        Variant{"agaricus_low_bit", "quantized_grad=on", "agaricus"},
        Variant{"lightgbm_multiclass_low_bit", "quantized_grad=on", "lightgbm_multiclass"}),
    VariantName);

// The generated 200k-row dense set, 5 rounds of depth 6, with one kind of option changed.
class GeneratedDenseOnDevice : public ::testing::TestWithParam<Variant> {};

TEST_P(GeneratedDenseOnDevice, ModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 200000);
  ExpectSameOnBoth(dir.path(),
                   WriteGeneratedConfig(dir) + " num_round=5 max_depth=6 " + GetParam().options);
}

INSTANTIATE_TEST_SUITE_P(
    DeviceTraining, GeneratedDenseOnDevice,
    ::testing::Values(Variant{"lossguide", "grow_policy=lossguide max_leaves=31 max_depth=0"},
                      Variant{"colsample",
                              "colsample_bytree=0.9 colsample_bylevel=0.8 colsample_bynode=0.7"},
                      Variant{"max_bin_16", "max_bin=16"},
                      Variant{"max_bin_1024", "max_bin=1024"},  // bins over 256: uint16
                      // Low-bit gradients: narrow cells, the leaf refit, row subsampling; auto is
                      // on from 100k rows.
                      Variant{"low_bit", "quantized_grad=on max_depth=8"},
                      Variant{"low_bit_auto_subsample", "quantized_grad=auto subsample=0.8"},
                      Variant{"low_bit_lossguide",
                              "quantized_grad=on grow_policy=lossguide max_leaves=31 max_depth=0"},
                      Variant{"low_bit_max_bin_1024", "quantized_grad=on max_bin=1024"},
                      // Trees of more nodes than the refit's walk takes: leaf rows partitioned.
                      Variant{"low_bit_depth_12", "quantized_grad=on max_depth=12"}),
    VariantName);

// monotone_constraints and interaction_constraints, 5 rounds of depth 6 (or 31 leaves): on the
// generated 200k-row dense set (12 features) and, with missing values (default directions under
// the weight boxes), on a generated 100k-row set of 12 features with 30% of the values missing.
class ConstraintsOnDevice : public ::testing::TestWithParam<Variant> {};

TEST_P(ConstraintsOnDevice, ModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  if (std::string(GetParam().set) == "missing") {
    test::WriteGeneratedSparse(dir.File("train.txt"), 100000, 12, 0.3);
  } else {
    test::WriteGeneratedDense(dir.File("train.txt"), 200000);
  }
  ExpectSameOnBoth(dir.path(),
                   WriteGeneratedConfig(dir) + " num_round=5 max_depth=6 " + GetParam().options);
}

#define RB_MONOTONE "'monotone_constraints=(1,-1,-1,1,-1,1)' "
#define RB_INTERACTION "'interaction_constraints=[[0,1],[2,3,4],[5,6,7,8]]' "
#define RB_LOSSGUIDE "grow_policy=lossguide max_leaves=31 max_depth=0 "
INSTANTIATE_TEST_SUITE_P(
    DeviceTraining, ConstraintsOnDevice,
    ::testing::Values(
        Variant{"monotone_depthwise", RB_MONOTONE, "dense"},
        Variant{"monotone_lossguide", RB_MONOTONE RB_LOSSGUIDE, "dense"},
        Variant{"monotone_missing_depthwise", RB_MONOTONE, "missing"},
        Variant{"monotone_missing_lossguide", RB_MONOTONE RB_LOSSGUIDE, "missing"},
        Variant{"interaction_depthwise", RB_INTERACTION "colsample_bynode=0.8", "dense"},
        Variant{"interaction_missing_lossguide", RB_INTERACTION RB_LOSSGUIDE, "missing"},
        Variant{"both_missing_depthwise", RB_MONOTONE RB_INTERACTION, "missing"},
        // Low-bit gradients: the refit clamps the leaves to the growth's boxes on both.
        Variant{"monotone_low_bit_depthwise", RB_MONOTONE "quantized_grad=on", "dense"},
        Variant{"monotone_low_bit_missing_lossguide", RB_MONOTONE RB_LOSSGUIDE "quantized_grad=on",
                "missing"}),
    VariantName);

// The objectives XGBoost 3.x has beside the first ones, on the generated 200k-row dense set with
// labels that suit each, 5 rounds of depth 6: element-wise ones have their gradients computed on
// the device; survival:cox, reg:absoluteerror and reg:quantileerror on the host (then uploaded;
// the last two with their base_score estimated from the labels, and several outputs).
struct ObjectiveVariant {
  const char* name;
  GeneratedLabel label;
  const char* options;
};
void PrintTo(const ObjectiveVariant& v, std::ostream* os) { *os << v.name; }

class ObjectiveOnDevice : public ::testing::TestWithParam<ObjectiveVariant> {};

TEST_P(ObjectiveOnDevice, ModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 200000, GetParam().label);
  test::WriteFile(dir.File("o.conf"),
                  "data = \"train.txt\"\neval[train] = \"train.txt\"\n"
                  "test:data = \"train.txt\"\n");
  ExpectSameOnBoth(dir.path(), std::string("o.conf num_round=5 max_depth=6 ") + GetParam().options);
}

INSTANTIATE_TEST_SUITE_P(
    DeviceTraining, ObjectiveOnDevice,
    ::testing::Values(
        ObjectiveVariant{"squarederror", GeneratedLabel::kReal, "objective=reg:squarederror"},
        ObjectiveVariant{"pseudohuber", GeneratedLabel::kReal,
                         "objective=reg:pseudohubererror huber_slope=2 eval_metric=mphe"},
        ObjectiveVariant{"gamma", GeneratedLabel::kPositive,
                         "objective=reg:gamma base_score=1 eval_metric=gamma-deviance"},
        ObjectiveVariant{"tweedie", GeneratedLabel::kPositive,
                         "objective=reg:tweedie tweedie_variance_power=1.3 base_score=1"},
        ObjectiveVariant{"poisson", GeneratedLabel::kPositive, "objective=count:poisson"},
        ObjectiveVariant{"squaredlog", GeneratedLabel::kPositive,
                         "objective=reg:squaredlogerror eval_metric=rmsle"},
        ObjectiveVariant{"hinge", GeneratedLabel::kBinary, "objective=binary:hinge"},
        ObjectiveVariant{"logitraw", GeneratedLabel::kBinary, "objective=binary:logitraw"},
        // At the default eta the Cox margins of this set overflow by the third round (XGBoost
        // 1.7.4's too): max_delta_step keeps them finite.
        ObjectiveVariant{"cox", GeneratedLabel::kSurvival,
                         "objective=survival:cox base_score=1 max_delta_step=1"},
        ObjectiveVariant{"absolute", GeneratedLabel::kReal, "objective=reg:absoluteerror"},
        ObjectiveVariant{"quantiles", GeneratedLabel::kReal,
                         "objective=reg:quantileerror quantile_alpha=[0.2,0.5,0.9]"}),
    [](const ::testing::TestParamInfo<ObjectiveVariant>& info) {
      return std::string(info.param.name);
    });

// survival:aft: gradients on the host from the side files' intervals (uncensored at the label,
// every third row right-censored), then uploaded.
TEST(DeviceTraining, SurvivalAftModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 200000, GeneratedLabel::kPositive);
  std::ifstream in(dir.File("train.txt"));
  std::ofstream lower(dir.File("train.txt.lower_bound")), upper(dir.File("train.txt.upper_bound"));
  std::string line;
  for (int i = 0; std::getline(in, line); ++i) {
    const std::string label = line.substr(0, line.find(' '));
    lower << label << '\n';
    upper << (i % 3 == 0 ? std::string("inf") : label) << '\n';
  }
  lower.close();
  upper.close();
  test::WriteFile(dir.File("o.conf"),
                  "data = \"train.txt\"\neval[train] = \"train.txt\"\ntest:data = \"train.txt\"\n");
  ExpectSameOnBoth(dir.path(),
                   "o.conf num_round=5 max_depth=6 objective=survival:aft "
                   "aft_loss_distribution=logistic base_score=1");
}

// rank:map (XGBoost 3.x's LambdaRankMAP): gradients on the host from the margins fetched back,
// then uploaded, as for rank:ndcg; LightGBM's rank set with its relevance binarised, 10 rounds.
TEST(DeviceTraining, RankMapModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteBinarisedRankSet(dir.path());
  test::WriteFile(dir.File("r.conf"),
                  "objective = rank:map\neval_metric = map\neval_metric = map@5-\n"
                  "data = \"train.txt\"\neval[test] = \"test.txt\"\ntest:data = \"test.txt\"\n");
  ExpectSameOnBoth(dir.path(), "r.conf num_round=10 max_depth=6");
  ExpectTwoDeviceWorkersGiveTheCpuModel(dir.path(), "r.conf num_round=10 max_depth=6");
}

TEST(DeviceTraining, GeneratedDenseMillionRowsModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 1000000);
  ExpectSameOnBoth(dir.path(),
                   WriteGeneratedConfig(dir) + " num_round=5 max_depth=8 subsample=0.9");
}

// 100k rows, 50 features, 30% of the values missing: default directions and missing bins.
TEST(DeviceTraining, GeneratedSparseWithMissingModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  test::WriteGeneratedSparse(dir.File("train.txt"), 100000, 50, 0.3);
  ExpectSameOnBoth(dir.path(), WriteGeneratedConfig(dir) + " num_round=10 max_depth=6");
}

TEST(DeviceTraining, GeneratedSparseLowBitModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  test::WriteGeneratedSparse(dir.File("train.txt"), 100000, 50, 0.3);
  ExpectSameOnBoth(dir.path(),
                   WriteGeneratedConfig(dir) + " num_round=10 max_depth=6 quantized_grad=on");
}

TEST(DeviceTraining, TwoWorkersOnOneGpuLowBitModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 200000);
  ExpectTwoDeviceWorkersGiveTheCpuModel(
      dir.path(), WriteGeneratedConfig(dir) + " num_round=5 max_depth=8 quantized_grad=on");
}

// A binary set with categorical features (feature_types = c,c,q,q,c): feature 0 one of 12 codes,
// 1 one of 3, 4 one of 40, 2 and 3 numerical; the label leans on groups of codes. Each value is
// missing with chance `missing` (0: every row has every feature, the dense layout). Returns the
// config's name, for the command line.
std::string WriteCategoricalSet(const test::TempDir& dir, int rows, double missing) {
  std::mt19937_64 rng(27);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::ofstream out(dir.File("train.txt"));
  for (int i = 0; i < rows; ++i) {
    const int city = static_cast<int>(unit(rng) * 12), kind = static_cast<int>(unit(rng) * 3);
    const int zone = static_cast<int>(unit(rng) * 40);
    const double a = std::round(unit(rng) * 1000) / 100, b = std::round(unit(rng) * 100) / 10;
    const double score = (city % 3 == 0 ? 1.0 : -0.5) + (kind == 1 ? 0.8 : 0.0) +
                         (zone % 7 == 2 ? 1.2 : 0.0) + (zone > 30 ? -0.6 : 0.0) + 0.15 * (a - 5) +
                         unit(rng) * 1.5 - 0.75;
    out << (score > 0 ? 1 : 0);
    const double values[5] = {static_cast<double>(city), static_cast<double>(kind), a, b,
                              static_cast<double>(zone)};
    for (int f = 0; f < 5; ++f) {
      if (missing > 0 && unit(rng) < missing) continue;
      out << ' ' << f << ':' << values[f];
    }
    out << '\n';
  }
  out.close();
  test::WriteFile(dir.File("cat.conf"),
                  "objective = binary:logistic\neval_metric = auc\neval_metric = logloss\n"
                  "feature_types = c,c,q,q,c\n"
                  "data = \"train.txt\"\neval[train] = \"train.txt\"\ntest:data = \"train.txt\"\n");
  return "cat.conf";
}

// Whether the model file dir/name has a categorical split.
bool HasCategoricalSplit(const std::string& dir, const std::string& name) {
  return test::ReadFile(dir + "/" + name).find("\"categories_nodes\"") != std::string::npos;
}

// Categorical features (issue 27): split search on the host from the device's histograms,
// partition and prediction cache by the category bit sets on the device. 60k rows (under
// quantized_grad=auto's 100k: exact gradients unless a variant sets it on), 5 rounds of depth 6
// (or 31 leaves): one-hot splits (max_cat_to_onehot above every feature's categories) and
// partition splits (the default 4: features 0 and 4 partition, 1 one-hot), dense and with 20% of
// the values missing (the sparse layout), depthwise and lossguide, and with low-bit gradients.
class CategoricalOnDevice : public ::testing::TestWithParam<Variant> {};

TEST_P(CategoricalOnDevice, ModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  const double missing = std::string(GetParam().set) == "missing" ? 0.2 : 0.0;
  ExpectSameOnBoth(dir.path(), WriteCategoricalSet(dir, 60000, missing) +
                                   " num_round=5 max_depth=6 " + GetParam().options);
  EXPECT_TRUE(HasCategoricalSplit(dir.path(), "cpu.json")) << "no categorical split to compare";
}

#define RB_ONEHOT "max_cat_to_onehot=64 "
INSTANTIATE_TEST_SUITE_P(
    DeviceTraining, CategoricalOnDevice,
    ::testing::Values(Variant{"partition_dense_depthwise", "", "dense"},
                      Variant{"partition_dense_lossguide", RB_LOSSGUIDE, "dense"},
                      Variant{"onehot_dense_depthwise", RB_ONEHOT, "dense"},
                      Variant{"onehot_missing_lossguide", RB_ONEHOT RB_LOSSGUIDE, "missing"},
                      Variant{"partition_missing_depthwise", "", "missing"},
                      Variant{"partition_missing_lossguide", RB_LOSSGUIDE, "missing"},
                      Variant{"threshold_colsample_missing",
                              "max_cat_threshold=3 colsample_bynode=0.8 seed=5", "missing"},
                      Variant{"lowbit_missing", "quantized_grad=on", "missing"},
                      Variant{"lowbit_dense_lossguide", "quantized_grad=on " RB_LOSSGUIDE, "dense"},
                      Variant{"constraints_missing",
                              "'monotone_constraints=(0,0,1,-1,0)' "
                              "'interaction_constraints=[[0,2],[1,3,4]]'",
                              "missing"}),
    VariantName);

TEST(DeviceTraining, TwoWorkersOnOneGpuCategoricalModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  for (const double missing : {0.0, 0.2}) {
    test::TempDir dir;
    ExpectTwoDeviceWorkersGiveTheCpuModel(
        dir.path(), WriteCategoricalSet(dir, 60000, missing) + " num_round=5 max_depth=6");
    EXPECT_TRUE(HasCategoricalSplit(dir.path(), "cpu.json")) << missing;
  }
}

TEST(DeviceTraining, TwoWorkersOnOneGpuAgaricusModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteSharedSetConfig(dir.path(), test::FindSharedSet("agaricus"), 10);
  ExpectTwoDeviceWorkersGiveTheCpuModel(dir.path(), "c.conf");
}

TEST(DeviceTraining, TwoWorkersOnOneGpuConstraintsModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  test::WriteGeneratedSparse(dir.File("train.txt"), 100000, 12, 0.3);
  ExpectTwoDeviceWorkersGiveTheCpuModel(
      dir.path(), WriteGeneratedConfig(dir) + " num_round=5 " RB_MONOTONE RB_INTERACTION);
}

// Feature bundles (enable_bundle=true): the device trains on the bundled matrix unpacked
// (gpu_hist/matrix.h). 600 one-hot features in 40 blocks, a tenth of the blocks with two members
// in a row: max_conflict_rate=0.2 keeps them bundled, so the conflicting rows' other members read
// as missing and the model is not the unbundled one; at rate 0 the conflicting features leave
// their bundles, the trees are the unbundled ones, and the device makes no bundles. Both on one
// device and with 2 workers (reduce_scatter under hist_sync=auto).
TEST(DeviceTraining, BundlesModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  test::WriteOneHotSet(dir.File("train.txt"), 20000, 0.1);
  const std::string conf = WriteGeneratedConfig(dir) + " num_round=5 max_depth=6";
  const test::RunResult off =
      test::RunRingboost(dir.path(), "train " + conf + " enable_bundle=false model_out=off.json");
  ASSERT_EQ(off.exit_code, 0) << off.err;
  for (const std::string rate : {"0", "0.2"}) {
    const std::string args = conf + " enable_bundle=true max_conflict_rate=" + rate;
    ExpectSameOnBoth(dir.path(), args);
    ExpectTwoDeviceWorkersGiveTheCpuModel(dir.path(), args);
    EXPECT_EQ(test::ReadFile(dir.File("off.json")) == test::ReadFile(dir.File("cpu.json")),
              rate == "0")
        << "rate " << rate;
  }
  const test::RunResult bundled = test::RunRingboost(
      dir.path(), "train " + conf + " enable_bundle=true max_conflict_rate=0.2 device=" + kDevice +
                      " verbosity=2 model_out=log.json");
  ASSERT_EQ(bundled.exit_code, 0) << bundled.err;
  EXPECT_NE(bundled.err.find("feature bundles: "), std::string::npos) << bundled.err;
}

TEST(DeviceTraining, TwoWorkersOnOneGpuGeneratedDenseModelIsTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 200000);
  ExpectTwoDeviceWorkersGiveTheCpuModel(
      dir.path(), WriteGeneratedConfig(dir) + " num_round=5 max_depth=8 subsample=0.9");
}

}  // namespace
}  // namespace ringboost
