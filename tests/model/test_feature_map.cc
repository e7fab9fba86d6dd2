// FeatureMap::Load: XGBoost fmap files, and file:line errors for malformed lines.
#include <gtest/gtest.h>

#include "common/error.h"
#include "helpers.h"
#include "model/model.h"

namespace ringboost {
namespace {

std::string LoadError(const std::string& path) {
  try {
    FeatureMap::Load(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "(loaded without error)";
}

TEST(FeatureMap, ReadsAllTypes) {
  test::TempDir dir;
  const std::string path = test::WriteFile(
      dir.File("fmap.txt"), "0\tcolor=red\ti\n1\tage\tint\r\n\n2 height q\n3\tweight\tfloat\n");
  const FeatureMap fmap = FeatureMap::Load(path);
  EXPECT_EQ(fmap.names, (std::vector<std::string>{"color=red", "age", "height", "weight"}));
  EXPECT_EQ(fmap.types, (std::vector<std::string>{"i", "int", "q", "float"}));
}

TEST(FeatureMap, MalformedLinesNameFileAndLine) {
  test::TempDir dir;
  const std::string path = dir.File("fmap.txt");
  test::WriteFile(path, "0\ta\ti\n1\tb\n");
  EXPECT_EQ(LoadError(path), path + ":2: expected '<id>\\t<name>\\t<type>', got 2 fields");
  test::WriteFile(path, "0\ta\ti\n2\tb\ti\n");
  EXPECT_EQ(LoadError(path),
            path + ":2: feature id 2 out of order; ids must be 0, 1, 2, ... (expected 1)");
  test::WriteFile(path, "x\ta\ti\n");
  EXPECT_EQ(LoadError(path), path + ":1: feature id 'x' is not a non-negative integer");
  test::WriteFile(path, "0\ta\tx\n");
  EXPECT_EQ(LoadError(path), path +
                                 ":1: unknown feature type 'x'; use i (indicator), q "
                                 "(quantitative), int, float or c (categorical)");
  // Models and JSON dumps hold names as JSON strings: a name that is not UTF-8 would stop the
  // run at its end, when the model is written.
  test::WriteFile(path, "0\tcaf\xe9\ti\n");
  EXPECT_EQ(LoadError(path),
            path + ":1: the feature name is not UTF-8 text; save the fmap as UTF-8");
  test::WriteFile(path, "0\tcaf\xc3\xa9\ti\n");
  EXPECT_EQ(FeatureMap::Load(path).names, (std::vector<std::string>{"caf\xc3\xa9"}));
  EXPECT_NE(LoadError(dir.File("absent")).find(dir.File("absent")), std::string::npos);
}

TEST(FeatureMap, ReadsTheAgaricusMap) {
  RB_REQUIRE_SHARED_DATA();
  const FeatureMap fmap = FeatureMap::Load(test::SharedDataDir() + "/agaricus/featmap.txt");
  ASSERT_EQ(fmap.names.size(), 126u);
  EXPECT_EQ(fmap.names[0], "cap-shape=bell");
  EXPECT_EQ(fmap.types[125], "i");
}

}  // namespace
}  // namespace ringboost
