// survival:aft's label bounds from `<file>.lower_bound` and `<file>.upper_bound`: read as the
// `.weight` side file is, per part of a sharded file, with the errors a user can act on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "data/data.h"
#include "data_test_util.h"
#include "helpers.h"

namespace ringboost {
namespace {

using test::LoadError;
using test::TempDir;
using test::WriteFile;

TEST(BoundFiles, ReadBesideTheData) {
  TempDir dir;
  std::string f = WriteFile(dir.File("t"), "0 1:1\n0 1:2\n0 1:3\n0 1:4\n");
  WriteFile(f + ".lower_bound", "1\n0\n# a comment line\n2.5\n3\n");
  WriteFile(f + ".upper_bound", "1\n4\ninf\n3\n");
  DataSet d = LoadData(f, {});
  EXPECT_EQ(d.label_lower_bound, (std::vector<float>{1, 0, 2.5f, 3}));
  EXPECT_EQ(d.label_upper_bound, (std::vector<float>{1, 4, INFINITY, 3}));
  // Without bound files: none.
  std::string g = WriteFile(dir.File("g"), "0 1:1\n");
  EXPECT_TRUE(LoadData(g, {}).label_lower_bound.empty());
  EXPECT_TRUE(LoadData(g, {}).label_upper_bound.empty());
}

TEST(BoundFiles, EachPartTakesItsRows) {
  TempDir dir;
  std::string text, lower, upper;
  for (int i = 0; i < 40; ++i) {
    text += "0 1:" + std::to_string(i) + "\n";
    lower += std::to_string(i) + "\n";
    upper += (i % 3 == 0 ? std::string("inf") : std::to_string(i + 1)) + "\n";
  }
  std::string f = WriteFile(dir.File("t"), text);
  WriteFile(f + ".lower_bound", lower);
  WriteFile(f + ".upper_bound", upper);
  const DataSet whole = LoadData(f, {});
  std::vector<float> lo, up;
  for (int part = 0; part < 3; ++part) {
    LoadOptions options;
    options.part = part;
    options.num_parts = 3;
    const DataSet d = LoadData(f, options);
    ASSERT_EQ(d.label_lower_bound.size(), d.NumRows());
    lo.insert(lo.end(), d.label_lower_bound.begin(), d.label_lower_bound.end());
    up.insert(up.end(), d.label_upper_bound.begin(), d.label_upper_bound.end());
  }
  EXPECT_EQ(lo, whole.label_lower_bound);
  EXPECT_EQ(up, whole.label_upper_bound);
  EXPECT_EQ(whole.label_lower_bound[39], 39.0f);
  EXPECT_EQ(whole.label_upper_bound[39], INFINITY);
}

TEST(BoundFiles, Errors) {
  TempDir dir;
  std::string f = WriteFile(dir.File("t"), "0 1:1\n0 1:2\n");
  WriteFile(f + ".lower_bound", "1\n2\n");
  EXPECT_EQ(LoadError(f), "'" + f + ".lower_bound' exists but '" + f +
                              ".upper_bound' does not; survival:aft needs both bounds of every "
                              "row (upper inf: right-censored)");
  WriteFile(f + ".upper_bound", "1\n");
  EXPECT_EQ(LoadError(f), "'" + f + ".upper_bound' has 1 upper bounds but '" + f +
                              "' has 2 data rows; give one upper bound per data row");
  WriteFile(f + ".upper_bound", "1\n1.5\n");
  EXPECT_EQ(LoadError(f), "'" + f + "': data row 2 has lower bound 2 above its upper bound 1.5 ('" +
                              f + ".lower_bound', '" + f + ".upper_bound'); give lower <= upper");
  WriteFile(f + ".upper_bound", "1\n0\n");
  WriteFile(f + ".lower_bound", "1\n0\n");
  EXPECT_EQ(LoadError(f), "'" + f + "': data row 2 has upper bound 0 ('" + f +
                              ".upper_bound'); a survival time's upper bound must be > 0 (inf: "
                              "right-censored)");
  WriteFile(f + ".lower_bound", "1\n-1\n");
  EXPECT_EQ(LoadError(f), f + ".lower_bound:2:1: bad lower bound '-1' (expected one number >= 0 "
                              "per line, or inf)");
  WriteFile(f + ".lower_bound", "1\nnan\n");
  EXPECT_EQ(LoadError(f), f + ".lower_bound:2:1: bad lower bound 'nan' (expected one number >= 0 "
                              "per line, or inf)");
  // One file of a list with bounds, another without.
  WriteFile(f + ".lower_bound", "1\n1\n");
  WriteFile(f + ".upper_bound", "1\n2\n");
  std::string g = WriteFile(dir.File("g"), "0 1:1\n");
  EXPECT_EQ(LoadError(f + ";" + g),
            "'" + f + "' has label bounds (.lower_bound, .upper_bound) but '" + g +
                "' has none; give every file of the data set bounds or "
                "none");
}

}  // namespace
}  // namespace ringboost
