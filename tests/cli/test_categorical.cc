// Categorical features end to end (issue 30): the same model file and eval log for 1 and 2
// threads and 1-3 workers (ringboost-submit and mpirun) whichever way the types are given
// (feature_types, an fmap, a CSV URI's categorical_column); device=cuda no longer refuses them;
// bad codes are refused as XGBoost refuses them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

// A value in [0, 1) from (row, column), the same on every machine.
double Unit(uint64_t row, uint64_t col) {
  uint64_t x = (row + 1) * 0x9E3779B97F4A7C15ull ^ (col + 7) * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return static_cast<double>(x >> 11) * 0x1p-53;
}

// Rows of: feature 0 a category of 12 codes (a tenth missing), feature 1 one of 3 codes, two
// numeric features; the label depends on groups of codes. LibSVM, or CSV with a header
// (y,city,kind,a,b).
void WriteSet(const std::string& path, int rows, bool csv) {
  std::ofstream out(path);
  if (csv) out << "y,city,kind,a,b\n";
  for (int i = 0; i < rows; ++i) {
    const int city = static_cast<int>(Unit(i, 0) * 12);
    const int kind = static_cast<int>(Unit(i, 1) * 3);
    const double a = std::round(Unit(i, 2) * 1000) / 100, b = std::round(Unit(i, 3) * 100) / 10;
    const bool missing = Unit(i, 4) < 0.1;
    const double y = (city % 3 == 0 ? 2.0 : 0.0) + (city == 7 ? -3.0 : 0.0) +
                     (kind == 1 ? 1.5 : 0.0) + 0.3 * a + Unit(i, 9);
    if (csv) {
      out << y << ',' << (missing ? "" : std::to_string(city)) << ',' << kind << ',' << a << ','
          << b << '\n';
    } else {
      out << y;
      if (!missing) out << " 0:" << city;
      out << " 1:" << kind << " 2:" << a << " 3:" << b << '\n';
    }
  }
}

struct Case {
  const char* name;
  bool csv;
  const char* keys;  // how the types are given, and the split kind
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class Categorical : public ::testing::TestWithParam<Case> {};

TEST_P(Categorical, SameModelForThreadsAndWorkers) {
  const Case& c = GetParam();
  test::TempDir dir;
  WriteSet(dir.File("train.txt"), 1500, c.csv);
  test::WriteFile(dir.File("f.map"), "0\tcity\tc\n1\tkind\tc\n2\ta\tq\n3\tb\tq\n");
  const std::string uri = c.csv ? "train.txt?format=csv&header=1&label_column=y&"
                                  "categorical_column=city,2"
                                : "train.txt";
  test::WriteFile(dir.File("c.conf"), std::string(c.keys) +
                                          "\nmax_depth = 4\nnum_round = 4\ndata = \"" + uri +
                                          "\"\neval[train] = \"" + uri + "\"\n");
  const std::string model = test::ExpectSameModelForThreadsAndWorkers(dir.path(), "train c.conf");
  EXPECT_NE(model.find("\"categories_nodes\""), std::string::npos) << "no categorical split";
}

INSTANTIATE_TEST_SUITE_P(
    Types, Categorical,
    ::testing::Values(Case{"feature_types_partition", false, "feature_types = c,c,q,q"},
                      Case{"fmap_onehot", false, "fmap = f.map\nmax_cat_to_onehot = 16"},
                      Case{"csv_columns_threshold", true, "max_cat_threshold = 3"}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// device=cuda trains categorical features (issue 27; the parity tests are DeviceTraining's
// CategoricalOnDevice): nothing refuses them by name any more. Without CUDA (or a device) the run
// stops on that; with a device, on the missing data file.
TEST(CategoricalCli, CudaDoesNotRefuseThem) {
  test::TempDir dir;
  for (const std::string& keys :
       {std::string("data = \"no-such-file.txt\"\nfeature_types = q,c"),
        std::string("data = \"no-such-file.csv?format=csv&categorical_column=1\"")}) {
    test::WriteFile(dir.File("c.conf"), keys + "\n");
    const test::RunResult r = test::RunRingboost(dir.path(), "train c.conf device=cuda");
    EXPECT_EQ(r.exit_code, 1) << keys;
    EXPECT_EQ(r.err.find("categorical"), std::string::npos) << r.err;
    EXPECT_TRUE(r.err.find("CUDA") != std::string::npos ||
                r.err.find("no-such-file") != std::string::npos)
        << r.err;
  }
}

TEST(CategoricalCli, NegativeAndHugeCodesAreRefusedAsXGBoostDoes) {
  test::TempDir dir;
  for (const char* bad : {"-1", "16777216"}) {
    // Row 2 is on line 4 (a comment and a blank line come before it).
    test::WriteFile(dir.File("t.txt"), std::string("# codes\n1 0:2 1:3\n\n2 0:") + bad + " 1:4\n");
    test::WriteFile(dir.File("c.conf"), "data = t.txt\nmodel_out = m.json\n");
    const test::RunResult r = test::RunRingboost(dir.path(), "train c.conf feature_types=c,q");
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_NE(r.err.find("t.txt:4: feature 0 is categorical and has the value " +
                         std::string(bad[0] == '-' ? "-1" : "1.67772e+07")),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(test::FileExists(dir.File("m.json")));
  }
  const test::RunResult r = test::RunRingboost(dir.path(), "train c.conf feature_types=q,x");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("feature_types"), std::string::npos) << r.err;
}

// Continuing a model whose trees split a feature by category needs the feature categorical
// again: without the types the new trees would split its codes as numbers.
TEST(CategoricalCli, ContinuingACategoricalModelKeepsTheTypes) {
  test::TempDir dir;
  WriteSet(dir.File("train.txt"), 600, false);
  test::WriteFile(dir.File("c.conf"), "data = train.txt\nmax_depth = 3\nnum_round = 2\n");
  ASSERT_EQ(test::RunRingboost(dir.path(), "train c.conf feature_types=c,c,q,q model_out=m.json")
                .exit_code,
            0);
  ASSERT_NE(test::ReadFile(dir.File("m.json")).find("\"categories_nodes\""), std::string::npos);
  const test::RunResult r =
      test::RunRingboost(dir.path(), "train c.conf model_in=m.json model_out=m2.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the model to continue from (model_in) splits feature 0 by category (tree "
                       "0), but this run takes it as numerical"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(test::FileExists(dir.File("m2.json")));
  EXPECT_EQ(test::RunRingboost(
                dir.path(), "train c.conf feature_types=c,c,q,q model_in=m.json model_out=m2.json")
                .exit_code,
            0);
}

}  // namespace
}  // namespace ringboost
