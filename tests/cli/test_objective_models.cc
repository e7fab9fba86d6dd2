// The objectives of XGBoost 3.x that ringboost added (issue 30) keep the promise of every model
// here: the same model file, byte for byte, and the same eval log for 1 and 2 threads and for 1, 2
// and 3 workers (ringboost-submit and mpirun), on a small generated set whose labels suit each.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

enum class Labels { kReal, kPositive, kBinary, kSurvival, kInterval, kRelevance };

// A value in [0, 1) from (row, column), the same on every machine.
double Unit(uint64_t row, uint64_t col) {
  uint64_t x = (row + 1) * 0x9E3779B97F4A7C15ull ^ (col + 7) * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return static_cast<double>(x >> 11) * 0x1p-53;
}

// `rows` LibSVM rows of 5 dense features and a label of the kind; a `.weight` file beside it when
// weighted (weights 0.5 .. 2); kInterval: `.lower_bound` and `.upper_bound` files of survival
// times, uncensored, right-, left- and interval-censored in turn; kRelevance: binary labels in
// query groups of 3 to 39 rows (a `.query` file), each weighted by its first row's weight.
void WriteSet(const std::string& path, int rows, Labels kind, bool weighted) {
  std::ofstream out(path), weights, lower, upper;
  if (weighted) weights.open(path + ".weight");
  if (kind == Labels::kRelevance) {
    std::ofstream query(path + ".query");
    for (int at = 0, k = 0; at < rows; ++k) {
      const int size = std::min(rows - at, 3 + k * 7 % 37);
      query << size << '\n';
      at += size;
    }
  }
  if (kind == Labels::kInterval) {
    lower.open(path + ".lower_bound");
    upper.open(path + ".upper_bound");
  }
  for (int i = 0; i < rows; ++i) {
    double f[5];
    for (int j = 0; j < 5; ++j) f[j] = std::round(Unit(i, j) * 1000) / 100;  // 0 .. 10
    const double noise = Unit(i, 99) - 0.5;
    const double z = 0.3 * f[0] - 0.2 * f[1] + 0.05 * f[2] * f[3] / 10 + noise;
    double y = 0;
    if (kind == Labels::kReal) y = 3 * z + (f[4] > 7 ? 4 : 0);
    if (kind == Labels::kPositive) y = std::exp(z / 2);
    if (kind == Labels::kBinary || kind == Labels::kRelevance) y = z > 1.0 ? 1 : 0;
    // Survival times, a quarter censored (negative); ties from the rounding.
    if (kind == Labels::kSurvival) y = std::round(std::exp(z / 2) * 20) * (i % 4 == 0 ? -1 : 1);
    if (kind == Labels::kInterval) {
      const double t = std::round(std::exp(z / 2) * 20) + 1;
      const char* bounds[4][2] = {{"", ""}, {"", "inf"}, {"0", ""}, {"", ""}};
      const std::string ts = std::to_string(t), t2 = std::to_string(t * 1.5);
      const int k = i % 4;
      lower << (*bounds[k][0] != '\0' ? std::string(bounds[k][0]) : ts) << '\n';
      upper << (*bounds[k][1] != '\0' ? std::string(bounds[k][1]) : (k == 3 ? t2 : ts)) << '\n';
    }
    out << y;
    for (int j = 0; j < 5; ++j) out << ' ' << j << ':' << f[j];
    out << '\n';
    if (weighted) weights << 0.5 + 1.5 * Unit(i, 50) << '\n';
  }
}

struct Case {
  const char* name;
  Labels labels;
  const char* keys;  // extra config lines
  bool weighted;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class NewObjective : public ::testing::TestWithParam<Case> {};

TEST_P(NewObjective, SameModelForThreadsAndWorkers) {
  const Case& c = GetParam();
  test::TempDir dir;
  WriteSet(dir.File("train.txt"), 1500, c.labels, c.weighted);
  test::WriteFile(dir.File("c.conf"), std::string(c.keys) +
                                          "\nmax_depth = 4\nnum_round = 3\ndata = \"train.txt\"\n"
                                          "eval[train] = \"train.txt\"\n");
  test::ExpectSameModelForThreadsAndWorkers(dir.path(), "train c.conf");
}

INSTANTIATE_TEST_SUITE_P(
    Objectives, NewObjective,
    ::testing::Values(
        Case{"pseudohuber", Labels::kReal,
             "objective = reg:pseudohubererror\nhuber_slope = 2\neval_metric = mphe\n"
             "eval_metric = mae",
             true},
        Case{"gamma", Labels::kPositive,
             "objective = reg:gamma\nbase_score = 1\neval_metric = gamma-nloglik\n"
             "eval_metric = gamma-deviance",
             false},
        Case{"tweedie", Labels::kPositive,
             "objective = reg:tweedie\ntweedie_variance_power = 1.3\nbase_score = 1", true},
        Case{"squaredlog", Labels::kPositive,
             "objective = reg:squaredlogerror\neval_metric = rmsle\neval_metric = mape", false},
        Case{"hinge", Labels::kBinary, "objective = binary:hinge", true},
        Case{"absolute", Labels::kReal, "objective = reg:absoluteerror\nsubsample = 0.8", false},
        Case{"absolute_weighted", Labels::kReal, "objective = reg:absoluteerror", true},
        Case{"quantile", Labels::kReal,
             "objective = reg:quantileerror\nquantile_alpha = 0.9\nsubsample = 0.8", false},
        Case{"cox", Labels::kSurvival, "objective = survival:cox\nbase_score = 1", true},
        Case{"quantiles", Labels::kReal,
             "objective = reg:quantileerror\nquantile_alpha = [0.2,0.5,0.9]", true},
        Case{"aft_normal", Labels::kInterval,
             "objective = survival:aft\nbase_score = 10\neval_metric = aft-nloglik\n"
             "eval_metric = interval-regression-accuracy",
             true},
        Case{"aft_logistic", Labels::kInterval,
             "objective = survival:aft\naft_loss_distribution = logistic\n"
             "aft_loss_distribution_scale = 0.8\nbase_score = 10",
             false},
        Case{"rank_map", Labels::kRelevance,
             "objective = rank:map\neval_metric = map\neval_metric = map@5-", true},
        Case{"rank_map_options", Labels::kRelevance,
             "objective = rank:map\nlambdarank_num_pair_per_sample = 3\n"
             "lambdarank_normalization = 0\nlambdarank_score_normalization = false\n"
             "subsample = 0.8",
             false},
        Case{"aft_extreme", Labels::kInterval,
             "objective = survival:aft\naft_loss_distribution = extreme\n"
             "aft_loss_distribution_scale = 1.5\nbase_score = 10",
             true}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// survival:aft's bounds from CSV columns the URI names give the model the side files give: the
// same rows written as a CSV (label, the 5 features, lower, upper) train the same model file, for
// one process and for 1-3 workers.
TEST(AftBoundColumns, SameModelAsFromSideFiles) {
  test::TempDir dir;
  WriteSet(dir.File("train.txt"), 1500, Labels::kInterval, true);
  std::ifstream rows(dir.File("train.txt")), lower(dir.File("train.txt.lower_bound")),
      upper(dir.File("train.txt.upper_bound")), weights(dir.File("train.txt.weight"));
  std::ofstream csv(dir.File("train.csv"));
  csv << "label,f0,f1,f2,f3,f4,w,lo,hi\n";
  std::string line, lo, hi, w;
  while (std::getline(rows, line) && std::getline(lower, lo) && std::getline(upper, hi) &&
         std::getline(weights, w)) {
    std::istringstream tokens(line);
    std::string token;
    tokens >> token;
    csv << token;
    while (tokens >> token) csv << ',' << token.substr(token.find(':') + 1);
    csv << ',' << w << ',' << lo << ',' << hi << '\n';
  }
  csv.close();
  const std::string keys =
      "objective = survival:aft\nbase_score = 10\nmax_depth = 4\n"
      "num_round = 3\neval_metric = aft-nloglik\n";
  test::WriteFile(dir.File("side.conf"),
                  keys + "data = \"train.txt\"\neval[train] = \"train.txt\"\n");
  const std::string uri =
      "train.csv?format=csv&header=1&label_column=label&weight_column=w&"
      "label_lower_bound_column=lo&label_upper_bound_column=hi";
  test::WriteFile(dir.File("csv.conf"),
                  keys + "data = \"" + uri + "\"\neval[train] = \"" + uri + "\"\n");
  const test::RunResult side =
      test::RunRingboost(dir.path(), "train side.conf nthread=1 model_out=side.json");
  ASSERT_EQ(side.exit_code, 0) << side.err;
  const std::string from_columns =
      test::ExpectSameModelForThreadsAndWorkers(dir.path(), "train csv.conf");
  EXPECT_EQ(from_columns, test::ReadFile(dir.File("side.json")));
}

}  // namespace
}  // namespace ringboost
