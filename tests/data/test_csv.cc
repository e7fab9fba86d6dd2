#include <gtest/gtest.h>

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

TEST(Csv, ExplicitFormatHasNoLabelColumnByDefault) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "1,0,2.5\n0,3,\n");
  DataSet d = LoadData(f + "?format=csv", {});
  EXPECT_EQ(d.label, (std::vector<float>{0, 0}));  // dmlc-core: no label column, labels 0
  EXPECT_EQ(d.row_ptr, (std::vector<uint64_t>{0, 3, 5}));
  EXPECT_EQ(d.index, (std::vector<uint32_t>{0, 1, 2, 0, 1}));
  EXPECT_EQ(d.value, (std::vector<float>{1, 0, 2.5f, 0, 3}));
  EXPECT_EQ(d.num_col, 3u);
}

TEST(Csv, LabelAndWeightColumnsAreTakenOut) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "5,1,0.5,7\n6,0,2,8\n");
  DataSet d = LoadData(f + "?format=csv&label_column=1&weight_column=2", {});
  EXPECT_EQ(d.label, (std::vector<float>{1, 0}));
  EXPECT_EQ(d.weight, (std::vector<float>{0.5f, 2}));
  EXPECT_EQ(d.index, (std::vector<uint32_t>{0, 1, 0, 1}));
  EXPECT_EQ(d.value, (std::vector<float>{5, 7, 6, 8}));
}

TEST(Csv, MissingValuesAreNotStoredButKeepTheirColumn) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "1, ,nan,NaN,NA,4\r\n");
  DataSet d = LoadData(f + "?format=csv&label_column=0", {});
  EXPECT_EQ(d.index, (std::vector<uint32_t>{4}));
  EXPECT_EQ(d.value, (std::vector<float>{4}));
  EXPECT_EQ(d.num_col, 5u);
}

TEST(Csv, DetectedTsvWithoutOptionsHasLabelFirst) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.tsv"), "1\t0.5\t0\n0\t-1\t2\n");
  DataSet d = LoadData(f, {});
  EXPECT_EQ(d.label, (std::vector<float>{1, 0}));
  EXPECT_EQ(d.index, (std::vector<uint32_t>{0, 1, 0, 1}));
  EXPECT_EQ(d.value, (std::vector<float>{0.5f, 0, -1, 2}));
}

TEST(Csv, DelimiterOption) {
  TempDir dir;
  // ';' separates files in a URI, so a ';' delimiter cannot be written; '|' can.
  std::string g = WriteFile(dir.File("b.txt"), "1|2\n3|4\n");
  DataSet d = LoadData(g + "?format=csv&label_column=0&delimiter=|", {});
  EXPECT_EQ(d.label, (std::vector<float>{1, 3}));
  EXPECT_EQ(d.value, (std::vector<float>{2, 4}));
  std::string t = WriteFile(dir.File("c.txt"), "1\t2\n");
  EXPECT_EQ(LoadData(t + "?format=csv&label_column=0&delimiter=\\t", {}).value,
            (std::vector<float>{2}));
}

TEST(Csv, MalformedFieldsNameFileLineColumn) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "1,2,3\n0,2,x1\n");
  EXPECT_EQ(LoadError(f + "?format=csv&label_column=0"),
            f + ":2:5: bad value 'x1' (expected a number, or empty/nan/NA for missing)");
  std::string g = WriteFile(dir.File("b.csv"), "1,2\n,3\n");
  EXPECT_EQ(LoadError(g + "?format=csv&label_column=0"),
            g + ":2:1: missing label (label_column=0)");
  std::string h = WriteFile(dir.File("c.csv"), "1,2\n3\n");
  EXPECT_EQ(LoadError(h + "?format=csv&label_column=1"),
            h + ":2:1: missing label: the row has 1 fields, label_column=1");
  std::string k = WriteFile(dir.File("d.csv"), "inf,2\n");
  EXPECT_EQ(LoadError(k + "?format=csv&label_column=0"),
            k + ":1:1: label 'inf' is not a finite number");
  std::string w = WriteFile(dir.File("e.csv"), "1,2,-1\n");
  EXPECT_EQ(LoadError(w + "?format=csv&label_column=0&weight_column=2"),
            w + ":1:5: bad weight '-1' (expected a finite number >= 0)");
}

TEST(Csv, BadUriOptions) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "1,2\n");
  EXPECT_EQ(LoadError(f + "?format=parquet"),
            "data URI '" + f + "?format=parquet': format='parquet' is not one of libsvm, csv");
  EXPECT_EQ(LoadError(f + "?format=csv&label_column=1x"),
            "data URI '" + f + "?format=csv&label_column=1x': label_column='1x' is not an integer");
}

// A negative column is no column: refused, not read as "none" (labels or weights silently absent).
TEST(Csv, NegativeColumnsAreRefused) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "1,2,3\n0,4,5\n");
  for (const char* key :
       {"label_column", "weight_column", "label_lower_bound_column", "categorical_column"}) {
    const std::string uri = f + "?format=csv&" + key + "=-1";
    EXPECT_EQ(LoadError(uri), "data URI '" + uri + "': " + key +
                                  "=-1 is negative; give a column number >= 0 (0 = the first) "
                                  "or a header name");
  }
}

TEST(Csv, CsvOptionsOnLibSvmDataAreAnError) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a"), "1 1:2\n");
  EXPECT_EQ(LoadError(f + "?label_column=0"),
            "data URI '" + f +
                "?label_column=0': label_column, weight_column, label_lower_bound_column, "
                "label_upper_bound_column, delimiter, header and categorical_column apply to CSV, "
                "but the data is LibSVM; add format=csv if it is CSV "
                "(LibSVM data takes feature_types)");
}

TEST(Csv, LibSvmStaysLibSvmWhenDetecting) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a"), "1\t1:2\t3:4\n");  // tabs, but id:value tokens
  DataSet d = LoadData(f, {});
  EXPECT_EQ(d.index, (std::vector<uint32_t>{1, 3}));
}

TEST(Csv, SharedLightgbmBinaryWithWeights) {
  RB_REQUIRE_SHARED_DATA();
  DataSet d = LoadData(test::SharedDataDir() + "/lightgbm/binary.train", {});
  EXPECT_EQ(d.NumRows(), 7000u);
  EXPECT_EQ(d.num_col, 28u);
  EXPECT_EQ(d.NumNonZero(), 7000u * 28);  // dense: zeros are stored too
  EXPECT_EQ(d.label[0], 1.0f);
  EXPECT_FLOAT_EQ(d.value[0], 0.869f);
  ASSERT_EQ(d.weight.size(), 7000u);
  EXPECT_FLOAT_EQ(d.weight[0], 1.2f);
  EXPECT_TRUE(d.group_ptr.empty());
}

TEST(Csv, SharedLightgbmMulticlass) {
  RB_REQUIRE_SHARED_DATA();
  DataSet d = LoadData(test::SharedDataDir() + "/lightgbm/multiclass.train", {});
  EXPECT_EQ(d.NumRows(), 7000u);
  EXPECT_EQ(d.num_col, 28u);
  for (float l : d.label) ASSERT_TRUE(l >= 0 && l <= 4);
}

}  // namespace
}  // namespace ringboost
