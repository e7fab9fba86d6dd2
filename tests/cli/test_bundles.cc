// Exclusive feature bundling (enable_bundle, max_conflict_rate; issue 26): bundles without
// conflicts grow the trees of unbundled training byte for byte, with every option that reads the
// features (missing values, categorical features, constraints, low-bit gradients, sampling,
// lossguide); the same model for 1-2 threads and 1-3 workers; with conflicts allowed, training
// stays close; device=cuda refuses enable_bundle=true by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

constexpr int kBlocks = 40, kWidth = 15;  // 600 features

// `rows` LibSVM rows of kBlocks one-hot blocks of kWidth features: a block is absent (missing)
// in a quarter of the rows, else one member holds an integer 0..9 (block 0: a category code
// 0..5). With `conflicts`, a block holds a second member in that share of rows. The label comes
// from blocks 0-3 and noise; the same file on every machine.
void WriteOneHotSet(const std::string& path, int rows, double conflicts) {
  std::ofstream out(path);
  uint64_t s = 11;
  auto unit = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) * 0x1p-53;
  };
  for (int i = 0; i < rows; ++i) {
    std::vector<std::pair<int, int>> row;  // (feature, value)
    double z = 2 * (unit() - 0.5);
    for (int b = 0; b < kBlocks; ++b) {
      if (unit() < 0.25) continue;
      const int m = static_cast<int>(unit() * kWidth);
      const int v = static_cast<int>(unit() * (b == 0 ? 6 : 10));
      row.push_back({b * kWidth + m, v});
      if (b == 0) z += (v % 2 == 0 ? 1.5 : -1.0);
      if (b == 1) z += (m < 7 ? 0.3 : -0.3) * v;
      if (b == 2 || b == 3) z += (m % 3 == 0 ? 1.0 : -0.4);
      if (unit() < conflicts) {
        const int other = (m + 1 + static_cast<int>(unit() * (kWidth - 1))) % kWidth;
        row.push_back({b * kWidth + other, static_cast<int>(unit() * 10)});
      }
    }
    std::sort(row.begin(), row.end());
    out << (z > 0 ? 1 : 0);
    for (const auto& [f, v] : row) out << ' ' << f << ':' << v;
    out << '\n';
  }
}

std::string Categorical() {
  std::string types;
  for (int f = 0; f < kWidth; ++f) types += f == 0 ? "c" : ",c";
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

TEST_F(Bundles, DeviceCudaRefusesItByName) {
  Write(0.0);
  const test::RunResult r = test::RunRingboost(
      dir_.path(), "train c.conf device=cuda enable_bundle=true model_out=g.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("enable_bundle=true"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("device=cpu"), std::string::npos) << r.err;
  EXPECT_TRUE(test::ReadFile(dir_.File("g.json")).empty());
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
