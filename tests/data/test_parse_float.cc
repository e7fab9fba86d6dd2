// parse_float: every float the readers take from text (LibSVM and CSV labels, weights, values and
// bounds, and the side files) is read the chosen way, and the same tokens are accepted either way.
#include <gtest/gtest.h>

#include <cstring>
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

float FromBits(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

// "1.659" and "-1.603" correctly rounded (as the compiler reads the literals), and as XGBoost's
// text readers (dmlc-core) read them: a float apart.
const float kExact1659 = 1.659f;
const float kDmlc1659 = FromBits(0x3fd45a1c);  // 1.65899992
const float kExactMinus1603 = -1.603f;
const float kDmlcMinus1603 = FromBits(0xbfcd2f1a);  // -1.60299993

LoadOptions Reading(FloatReading how) {
  LoadOptions options;
  options.parse_float = how;
  return options;
}

TEST(ParseFloat, TheTwoReadingsDiffer) {
  EXPECT_NE(kExact1659, kDmlc1659);
  EXPECT_NE(kExactMinus1603, kDmlcMinus1603);
}

TEST(ParseFloat, LibSVMLabelsWeightsAndValues) {
  TempDir dir;
  const std::string f = WriteFile(dir.File("a.txt"), "1.659:1.659 0:-1.603 1:1.659\n");
  const DataSet exact = LoadData(f, {});
  EXPECT_EQ(exact.label, (std::vector<float>{kExact1659}));
  EXPECT_EQ(exact.weight, (std::vector<float>{kExact1659}));
  EXPECT_EQ(exact.value, (std::vector<float>{kExactMinus1603, kExact1659}));
  const DataSet xgboost = LoadData(f, Reading(FloatReading::kXGBoost));
  EXPECT_EQ(xgboost.label, (std::vector<float>{kDmlc1659}));
  EXPECT_EQ(xgboost.weight, (std::vector<float>{kDmlc1659}));
  EXPECT_EQ(xgboost.value, (std::vector<float>{kDmlcMinus1603, kDmlc1659}));
}

TEST(ParseFloat, CsvLabelWeightBoundAndValueColumns) {
  TempDir dir;
  const std::string f =
      WriteFile(dir.File("a.csv"), "y,w,lo,hi,a\n1.659,1.659,1.659,1.659,-1.603\n");
  const std::string uri = f +
                          "?format=csv&header=1&label_column=y&weight_column=w&"
                          "label_lower_bound_column=lo&label_upper_bound_column=hi";
  const DataSet exact = LoadData(uri, {});
  const DataSet xgboost = LoadData(uri, Reading(FloatReading::kXGBoost));
  for (const auto& [d, v1659, v1603] : {std::make_tuple(&exact, kExact1659, kExactMinus1603),
                                        std::make_tuple(&xgboost, kDmlc1659, kDmlcMinus1603)}) {
    EXPECT_EQ(d->label, (std::vector<float>{v1659}));
    EXPECT_EQ(d->weight, (std::vector<float>{v1659}));
    EXPECT_EQ(d->label_lower_bound, (std::vector<float>{v1659}));
    EXPECT_EQ(d->label_upper_bound, (std::vector<float>{v1659}));
    EXPECT_EQ(d->value, (std::vector<float>{v1603}));
  }
}

TEST(ParseFloat, SideFiles) {
  TempDir dir;
  const std::string f = WriteFile(dir.File("a.txt"), "1 0:1\n");
  WriteFile(dir.File("a.txt.weight"), "1.659\n");
  WriteFile(dir.File("a.txt.lower_bound"), "1.659\n");
  WriteFile(dir.File("a.txt.upper_bound"), "1.659\n");
  const DataSet exact = LoadData(f, {});
  EXPECT_EQ(exact.weight, (std::vector<float>{kExact1659}));
  EXPECT_EQ(exact.label_lower_bound, (std::vector<float>{kExact1659}));
  const DataSet xgboost = LoadData(f, Reading(FloatReading::kXGBoost));
  EXPECT_EQ(xgboost.weight, (std::vector<float>{kDmlc1659}));
  EXPECT_EQ(xgboost.label_lower_bound, (std::vector<float>{kDmlc1659}));
  EXPECT_EQ(xgboost.label_upper_bound, (std::vector<float>{kDmlc1659}));
}

// What is an error (or missing) does not depend on the reading: an infinite value stays an error
// though dmlc-core would clip 1e39 to 1e38, and a trailing 'f' that dmlc-core eats is still one.
TEST(ParseFloat, TheSameTokensAreErrorsEitherWay) {
  TempDir dir;
  for (const char* line : {"0 0:1e39\n", "0 0:1.5f\n", "0 0:1e\n", "0 0:inf\n", "1e39 0:1\n",
                           "1:-1 0:1\n", "0 0:1.2.3\n", "0 0:+-1\n", "0 0:--1\n", "0 0:.\n"}) {
    const std::string f = WriteFile(dir.File("a.txt"), line);
    const std::string exact = LoadError(f);
    EXPECT_NE(exact, "no error") << line;
    EXPECT_EQ(LoadError(f, Reading(FloatReading::kXGBoost)), exact) << line;
  }
  const std::string f = WriteFile(dir.File("b.txt"), "0 0:nan 1:-.5 2:5.\n");
  const DataSet xgboost = LoadData(f, Reading(FloatReading::kXGBoost));
  EXPECT_EQ(xgboost.index, (std::vector<uint32_t>{1, 2}));  // NaN: missing, not stored
  EXPECT_EQ(xgboost.value, (std::vector<float>{-0.5f, 5.0f}));
}

}  // namespace
}  // namespace ringboost
