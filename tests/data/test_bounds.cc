// survival:aft's label bounds from `<file>.lower_bound` and `<file>.upper_bound` (read as the
// `.weight` side file is, per part of a sharded file) or from CSV columns the URI names, with the
// errors a user can act on.
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

// The bounds of `uri` read in 3 parts, put together, are those of `whole`.
void ExpectPartsTakeTheirBounds(const std::string& uri, const DataSet& whole) {
  std::vector<float> lo, up;
  for (int part = 0; part < 3; ++part) {
    LoadOptions options;
    options.part = part;
    options.num_parts = 3;
    const DataSet d = LoadData(uri, options);
    ASSERT_EQ(d.label_lower_bound.size(), d.NumRows());
    ASSERT_EQ(d.label_upper_bound.size(), d.NumRows());
    lo.insert(lo.end(), d.label_lower_bound.begin(), d.label_lower_bound.end());
    up.insert(up.end(), d.label_upper_bound.begin(), d.label_upper_bound.end());
  }
  EXPECT_EQ(lo, whole.label_lower_bound);
  EXPECT_EQ(up, whole.label_upper_bound);
}

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
  ExpectPartsTakeTheirBounds(f, whole);
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

// The same rows as ReadBesideTheData's, the bounds in columns 1 and 3 of a CSV: the features are
// the other columns, and the bounds are those of the side files.
TEST(BoundColumns, ReadFromTheCsv) {
  TempDir dir;
  std::string f = WriteFile(dir.File("t.csv"), "0,1,7,1\n0,0,8,4\n0,2.5,9,inf\n0,3,10,3\n");
  DataSet d = LoadData(f + "?format=csv&label_column=0&label_lower_bound_column=1&"
                           "label_upper_bound_column=3",
                       {});
  EXPECT_EQ(d.label_lower_bound, (std::vector<float>{1, 0, 2.5f, 3}));
  EXPECT_EQ(d.label_upper_bound, (std::vector<float>{1, 4, INFINITY, 3}));
  EXPECT_EQ(d.num_col, 1u);  // column 2 is feature 0
  EXPECT_EQ(d.value, (std::vector<float>{7, 8, 9, 10}));
  // By header names, with the rows spread over parts of the file: the same bounds.
  std::string text = "lo,label,x,hi\n";
  for (int i = 0; i < 40; ++i) {
    text += std::to_string(i) + ",0," + std::to_string(i % 7) + "," +
            (i % 3 == 0 ? std::string("inf") : std::to_string(i + 1)) + "\n";
  }
  std::string g = WriteFile(dir.File("g.csv"), text);
  const std::string uri = g +
                          "?format=csv&header=1&label_column=label&"
                          "label_lower_bound_column=lo&label_upper_bound_column=hi";
  const DataSet whole = LoadData(uri, {});
  ASSERT_EQ(whole.NumRows(), 40u);
  EXPECT_EQ(whole.label_lower_bound[39], 39.0f);
  EXPECT_EQ(whole.label_upper_bound[39], INFINITY);
  ExpectPartsTakeTheirBounds(uri, whole);
}

TEST(BoundColumns, Errors) {
  TempDir dir;
  std::string f = WriteFile(dir.File("t.csv"), "0,1,7,2\n0,2,8,1\n");
  const std::string cols =
      "?format=csv&label_column=0&label_lower_bound_column=1&"
      "label_upper_bound_column=3";
  EXPECT_EQ(LoadError(f + cols), f + ":2:1: lower bound 2 is above the upper bound 1; give lower "
                                     "<= upper");
  WriteFile(f, "0,1,7,2\n0,0,8,0\n");
  EXPECT_EQ(LoadError(f + cols), f + ":2:1: upper bound 0 (label_upper_bound_column=3); a "
                                     "survival time's upper bound must be > 0 (inf: "
                                     "right-censored)");
  WriteFile(f, "0,1,7,2\n0,-1,8,2\n");
  EXPECT_EQ(LoadError(f + cols), f + ":2:3: bad lower bound '-1' (label_lower_bound_column=1: "
                                     "expected a number >= 0, or inf)");
  WriteFile(f, "0,1,7,2\n0,1,8,nan\n");
  EXPECT_EQ(LoadError(f + cols), f + ":2:7: bad upper bound 'nan' (label_upper_bound_column=3: "
                                     "expected a number >= 0, or inf)");
  WriteFile(f, "0,1,7,2\n0,,8,2\n");
  EXPECT_EQ(LoadError(f + cols), f + ":2:3: missing lower bound (label_lower_bound_column=1)");
  WriteFile(f, "0,1,7,2\n0,1,8\n");
  EXPECT_EQ(LoadError(f + cols), f + ":2:1: missing upper bound: the row has 3 fields, "
                                     "label_upper_bound_column=3");
  WriteFile(f, "0,1,7,2\n");
  EXPECT_EQ(
      LoadError(f + "?format=csv&label_lower_bound_column=1"),
      "data URI '" + f +
          "?format=csv&label_lower_bound_column=1': label_lower_bound_column "
          "is given without label_upper_bound_column; survival:aft needs both bounds of every "
          "row (an upper bound inf is right-censored)");
  EXPECT_EQ(LoadError(f + cols + "&weight_column=3"),
            "data URI '" + f + cols +
                "&weight_column=3': weight_column and "
                "label_upper_bound_column are both column 3; they must differ");
  EXPECT_EQ(LoadError(f + cols + "&categorical_column=1"),
            "data URI '" + f + cols +
                "&categorical_column=1': categorical_column 1 is the "
                "label_lower_bound_column; name a feature column");
  // Side files and columns both: an error naming both.
  WriteFile(f + ".lower_bound", "1\n");
  WriteFile(f + ".upper_bound", "2\n");
  EXPECT_EQ(LoadError(f + cols),
            "data URI '" + f + cols +
                "': the label bounds are given both by "
                "label_lower_bound_column/label_upper_bound_column and by the side files '" +
                f + ".lower_bound', '" + f +
                ".upper_bound'; keep one (remove the side files or the "
                "columns)");
}

}  // namespace
}  // namespace ringboost
