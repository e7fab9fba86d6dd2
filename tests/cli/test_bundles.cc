// Exclusive feature bundling (enable_bundle, max_conflict_rate; issue 26): bundles without
// conflicts grow the trees of unbundled training byte for byte, with every option that reads the
// features (missing values, categorical features, constraints, low-bit gradients, sampling,
// lossguide); the same model for 1-2 threads and 1-3 workers; with conflicts allowed, training
// stays close; workers without rows. device=cuda: tests/cli/test_device_training.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

using test::kOneHotWidth;
using test::WriteOneHotSet;

std::string Categorical() {
  std::string types;
  for (int f = 0; f < kOneHotWidth; ++f) types += f == 0 ? "c" : ",c";
  return types;
}

class Bundles : public ::testing::Test {
 protected:
  void Write(double conflicts) {
    WriteOneHotSet(dir_.File("train.txt"), 2000, conflicts);
    WriteOneHotSet(dir_.File("test.txt"), 500, conflicts);
    test::WriteFile(dir_.File("c.conf"),
                    "objective = binary:logistic\neval_metric = auc\nmax_depth = 5\n"
                    "num_round = 4\ndata = \"train.txt\"\neval[test] = \"test.txt\"\n");
  }
  // Trains one process; returns the eval log, fills *model and *err.
  std::string Train(const std::string& args, std::string* model, std::string* err = nullptr) {
    const test::RunResult r =
        test::RunRingboost(dir_.path(), "train c.conf verbosity=2 model_out=m.json " + args);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
    *model = test::ReadFile(dir_.File("m.json"));
    if (err != nullptr) *err = r.err;
    return test::EvalLog(r.out);
  }
  test::TempDir dir_;
};

TEST_F(Bundles, WithoutConflictsTheTreesAreTheUnbundledOnes) {
  Write(0.0);
  const std::vector<std::string> options = {
      "",
      "quantized_grad=on",
      "colsample_bytree=0.7 colsample_bynode=0.6 subsample=0.8",
      "monotone_constraints='(1,0,-1)'",
      "interaction_constraints='[[0,15,16],[30,31,45]]'",
      "feature_types=" + Categorical(),
      "grow_policy=lossguide max_leaves=12",
  };
  for (const std::string& o : options) {
    std::string off, on, err;
    const std::string log_off = Train(o + " enable_bundle=false", &off, &err);
    EXPECT_EQ(err.find("feature bundles"), std::string::npos) << err;
    const std::string log_on = Train(o + " enable_bundle=true", &on, &err);
    // 40 blocks of 15 features with at most 10 bins each: one column a block.
    EXPECT_NE(err.find("feature bundles: 40 columns for 600 features (600 in bundles"),
              std::string::npos)
        << o << ": " << err;
    EXPECT_EQ(log_on, log_off) << o;
    EXPECT_EQ(on, off) << o;
    EXPECT_FALSE(on.empty());
    if (!o.empty()) continue;
    // auto bundles too here: 40 columns for about 30 values a row.
    std::string automatic;
    EXPECT_EQ(Train(o, &automatic, &err), log_off) << o;
    EXPECT_NE(err.find("feature bundles: 40 columns"), std::string::npos) << o << ": " << err;
    EXPECT_EQ(automatic, off) << o;
  }
}

TEST_F(Bundles, SameModelForThreadsAndWorkers) {
  Write(0.0);
  test::ExpectSameModelForThreadsAndWorkers(dir_.path(), "train c.conf enable_bundle=true");
}

TEST_F(Bundles, WithConflictsSameModelForThreadsAndWorkers) {
  Write(0.1);
  test::ExpectSameModelForThreadsAndWorkers(
      dir_.path(), "train c.conf enable_bundle=true max_conflict_rate=0.2");
}

// The last row, padded with spaces to three times the bytes before it, starts in the first quarter
// of the file: of 2 workers the second gets no rows, of 3 the second and third. A worker without
// rows has its bundles' dense layout and no columns (it failed a check when a split was applied).
TEST_F(Bundles, WorkersWithoutRowsSameModel) {
  Write(0.1);
  const std::string path = WriteOneHotSet(dir_.File("train.txt"), 300, 0.1);
  std::string text = test::ReadFile(path);
  const std::size_t last = text.rfind('\n', text.size() - 2) + 1;
  text.insert(text.size() - 1, std::string(3 * last, ' '));
  test::WriteFile(path, text);
  std::string model, err;
  Train("enable_bundle=true max_conflict_rate=0.2", &model, &err);
  EXPECT_NE(err.find("feature bundles: "), std::string::npos) << err;
  EXPECT_EQ(test::ExpectSameModelForThreadsAndWorkers(
                dir_.path(), "train c.conf enable_bundle=true max_conflict_rate=0.2"),
            model);
}

// A tenth of the blocks hold two members: rate 0 evicts the conflicting features (the same trees
// as unbundled), rate 0.2 keeps them bundled (the lower id's value wins in a conflicting row):
// other trees, test AUC within 0.03.
TEST_F(Bundles, ConflictsAllowedStayClose) {
  Write(0.1);
  std::string off, strict, loose, err;
  const std::string log_off = Train("enable_bundle=false", &off);
  EXPECT_EQ(Train("enable_bundle=true", &strict), log_off);
  EXPECT_EQ(strict, off);
  const std::string log_loose = Train("enable_bundle=true max_conflict_rate=0.2", &loose, &err);
  EXPECT_NE(err.find("feature bundles: "), std::string::npos) << err;
  EXPECT_NE(loose, off);
  auto last_auc = [](const std::string& log) {
    return std::stod(log.substr(log.rfind("test-auc:") + 9));
  };
  EXPECT_NEAR(last_auc(log_loose), last_auc(log_off), 0.03) << log_loose << log_off;
  EXPECT_GT(last_auc(log_off), 0.75) << log_off;
}

// With conflicts allowed, training's margins read a conflicting row's other members as missing
// while a model predicts from all its values: a run from a model (model_in, checkpoint_dir) says
// it cannot continue an uninterrupted run exactly; rate 0 and a fresh run say nothing.
TEST_F(Bundles, ConflictsAndContinuationWarn) {
  Write(0.1);
  std::string model, err;
  const char* kWarning = "grows other trees than an uninterrupted run";
  Train("enable_bundle=true max_conflict_rate=0.2", &model, &err);
  EXPECT_EQ(err.find(kWarning), std::string::npos) << err;
  std::filesystem::copy_file(dir_.File("m.json"), dir_.File("first.json"));
  Train("enable_bundle=true max_conflict_rate=0.2 model_in=first.json", &model, &err);
  EXPECT_NE(err.find(kWarning), std::string::npos) << err;
  Train("enable_bundle=true max_conflict_rate=0.2 checkpoint_dir=ck", &model, &err);
  EXPECT_NE(err.find(kWarning), std::string::npos) << err;
  Train("enable_bundle=true model_in=first.json", &model, &err);
  EXPECT_EQ(err.find(kWarning), std::string::npos) << err;
}

TEST_F(Bundles, AgaricusTreesAreTheUnbundledOnes) {
  RB_REQUIRE_SHARED_DATA();
  test::WriteAgaricusSamplingConfig(dir_.path());
  std::string off, on;
  const test::RunResult a =
      test::RunRingboost(dir_.path(), "train a.conf enable_bundle=false model_out=off.json");
  const test::RunResult b = test::RunRingboost(
      dir_.path(), "train a.conf enable_bundle=true verbosity=2 model_out=on.json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  // 22 attributes one-hot coded: 22 columns.
  EXPECT_NE(b.err.find("feature bundles: 22 columns"), std::string::npos) << b.err;
  EXPECT_EQ(test::EvalLog(a.out), test::EvalLog(b.out));
  EXPECT_EQ(test::ReadFile(dir_.File("off.json")), test::ReadFile(dir_.File("on.json")));
}

TEST_F(Bundles, BadValuesNameTheKey) {
  Write(0.0);
  for (const char* bad : {"enable_bundle=yes", "max_conflict_rate=1"}) {
    const test::RunResult r =
        test::RunRingboost(dir_.path(), std::string("train c.conf model_out=b.json ") + bad);
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_NE(r.err.find(std::string(bad).substr(0, std::string(bad).find('='))), std::string::npos)
        << r.err;
    EXPECT_TRUE(test::ReadFile(dir_.File("b.json")).empty());
  }
}

}  // namespace
}  // namespace ringboost
