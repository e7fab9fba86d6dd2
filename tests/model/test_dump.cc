// DumpText / DumpJson in XGBoost 1.7.4's formats: the golden hist model built by hand, and a
// small tree through every feature-map type.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>

#include "helpers.h"
#include "model/model.h"

namespace ringboost {
namespace {

struct NodeStats {
  int nid;
  float leaf;  // leaves only
  float gain;  // splits only
  float cover;
};

void SetStats(RegTree* tree, const std::vector<NodeStats>& stats) {
  for (const NodeStats& s : stats) {
    (*tree)[s.nid].leaf_value = s.leaf;
    (*tree)[s.nid].gain = s.gain;
    (*tree)[s.nid].sum_hess = s.cover;
  }
}

// The two trees of golden/xgboost-1.7.4-mushroom/hist/dump.stats.txt. Every split is
// `f < 2.00001001`, missing goes right ("no"); children in the order XGBoost created them.
Model GoldenHistModel() {
  const float cond = 2.00001001f;
  RegTree t0;
  EXPECT_EQ(t0.Split(0, 29, cond, false, 4000.53101f), 1);
  EXPECT_EQ(t0.Split(1, 109, cond, false, 198.173828f), 3);
  EXPECT_EQ(t0.Split(2, 56, cond, false, 1158.21204f), 5);
  EXPECT_EQ(t0.Split(4, 67, cond, false, 86.3969727f), 7);
  EXPECT_EQ(t0.Split(5, 21, cond, false, 114.297333f), 9);
  EXPECT_EQ(t0.Split(6, 60, cond, false, 568.215576f), 11);
  SetStats(&t0, {{0, 0, 4000.53101f, 1628.25f},
                 {1, 0, 198.173828f, 703.75f},
                 {2, 0, 1158.21204f, 924.5f},
                 {3, 1.85964918f, 0, 13.25f},
                 {4, 0, 86.3969727f, 690.5f},
                 {5, 0, 114.297333f, 112.5f},
                 {6, 0, 568.215576f, 812},
                 {7, 0.808510661f, 0, 10.75f},
                 {8, -1.98531032f, 0, 679.75f},
                 {9, -1.98104262f, 0, 104.5f},
                 {10, 1.77777779f, 0, 8},
                 {11, -1.95061731f, 0, 39.5f},
                 {12, 1.90174532f, 0, 772.5f}});
  RegTree t1;
  EXPECT_EQ(t1.Split(0, 29, cond, false, 480.158417f), 1);
  EXPECT_EQ(t1.Split(1, 109, cond, false, 28.7784424f), 3);
  EXPECT_EQ(t1.Split(2, 21, cond, false, 276.744812f), 5);
  EXPECT_EQ(t1.Split(4, 39, cond, false, 26.1188354f), 7);
  EXPECT_EQ(t1.Split(5, 36, cond, false, 392.998108f), 9);
  SetStats(&t1, {{0, 0, 480.158417f, 719.00769f},
                 {1, 0, 28.7784424f, 304.030151f},
                 {2, 0, 276.744812f, 414.977539f},
                 {3, 0.994743764f, 0, 6.17916679f},
                 {4, 0, 26.1188354f, 297.850983f},
                 {5, 0, 392.998108f, 118.939491f},
                 {6, 1.14570117f, 0, 296.038025f},
                 {7, -1.15275192f, 0, 274.996918f},
                 {8, -0.0386054367f, 0, 22.8540649f},
                 {9, -0.127376497f, 0, 110.574959f},
                 {10, -6.8755784f, 0, 8.36453247f}});
  Model m;
  m.objective = "binary:logistic";
  m.num_feature = 127;
  m.num_rounds = 2;
  m.trees = {t0, t1};
  m.tree_group = {0, 0};
  return m;
}

std::string GoldenFile(const std::string& name) {
  return test::ReadFile(test::SharedGoldenDir() + "/xgboost-1.7.4-mushroom/" + name);
}

TEST(DumpText, GoldenHistModelWithStatsIsByteIdentical) {
  if (test::SharedGoldenDir().empty()) GTEST_SKIP() << "../shared/golden not found";
  const std::string golden = GoldenFile("hist/dump.stats.txt");
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(DumpText(GoldenHistModel(), nullptr, true), golden);
}

TEST(DumpText, GoldenHistModelWithoutStats) {
  if (test::SharedGoldenDir().empty()) GTEST_SKIP() << "../shared/golden not found";
  // Without stats the lines are the golden ones up to ",gain=" / ",cover=".
  const std::string expected =
      std::regex_replace(GoldenFile("hist/dump.stats.txt"), std::regex(",(gain|cover)=[^\n]*"), "");
  ASSERT_NE(expected.find("0:[f29<2.00001001] yes=1,no=2,missing=2\n"), std::string::npos);
  EXPECT_EQ(DumpText(GoldenHistModel(), nullptr, false), expected);
}

TEST(DumpJson, GoldenHistModelStructure) {
  const nlohmann::json dump = nlohmann::json::parse(DumpJson(GoldenHistModel(), nullptr, true));
  ASSERT_TRUE(dump.is_array());
  ASSERT_EQ(dump.size(), 2u);
  const nlohmann::json& root = dump[0];
  EXPECT_EQ(root["nodeid"], 0);
  EXPECT_EQ(root["depth"], 0);
  EXPECT_EQ(root["split"], "29");
  EXPECT_EQ(root["yes"], 1);
  EXPECT_EQ(root["no"], 2);
  EXPECT_EQ(root["missing"], 2);
  EXPECT_FLOAT_EQ(root["split_condition"].get<float>(), 2.00001001f);
  EXPECT_FLOAT_EQ(root["gain"].get<float>(), 4000.53101f);
  ASSERT_EQ(root["children"].size(), 2u);
  EXPECT_EQ(root["children"][0]["nodeid"], 1);
  EXPECT_EQ(root["children"][1]["nodeid"], 2);
  const nlohmann::json& leaf3 = root["children"][0]["children"][0];
  EXPECT_EQ(leaf3["nodeid"], 3);
  EXPECT_FLOAT_EQ(leaf3["leaf"].get<float>(), 1.85964918f);
  EXPECT_FLOAT_EQ(leaf3["cover"].get<float>(), 13.25f);
  EXPECT_FALSE(leaf3.contains("children"));
  EXPECT_EQ(dump[1]["children"][1]["children"][1]["nodeid"], 6);
}

// 0: age (int) < 2.5 -> [1: height (q) < 1.75 missing left -> [3: f7 < 3 -> 7 | 8] | 4]
//                     | [2: smoker (i), missing left -> 5 | 6]
Model FmapTypesModel() {
  RegTree t;
  t.Split(0, 0, 2.5f, false, 1.0f);
  t.Split(1, 1, 1.75f, true, 2.0f);
  t.Split(2, 2, 0.5f, true, 3.0f);
  t.Split(3, 7, 3.0f, false, 4.0f);
  t[7].leaf_value = 0.1f;
  t[8].leaf_value = -2.0f;
  t[4].leaf_value = 1e-10f;
  t[5].leaf_value = 3.25f;
  t[6].leaf_value = 12345678.0f;
  Model m;
  m.num_feature = 8;
  m.num_rounds = 1;
  m.trees = {t};
  m.tree_group = {0};
  return m;
}

FeatureMap ThreeFeatureMap() {
  FeatureMap fmap;
  fmap.names = {"age", "height", "smoker"};
  fmap.types = {"int", "q", "i"};
  return fmap;
}

TEST(DumpText, FeatureMapTypes) {
  const FeatureMap fmap = ThreeFeatureMap();
  EXPECT_EQ(DumpText(FmapTypesModel(), &fmap, false),
            "booster[0]:\n"
            "0:[age<3] yes=1,no=2,missing=2\n"
            "\t1:[height<1.75] yes=3,no=4,missing=3\n"
            "\t\t3:[f7<3] yes=7,no=8,missing=8\n"
            "\t\t\t7:leaf=0.100000001\n"
            "\t\t\t8:leaf=-2\n"
            "\t\t4:leaf=1.00000001e-10\n"
            "2:[smoker] yes=6,no=5\n"
            "\t\t5:leaf=3.25\n"
            "\t\t6:leaf=12345678\n");
}

TEST(DumpText, IntegerConditionRoundsUp) {
  FeatureMap fmap = ThreeFeatureMap();
  Model m = FmapTypesModel();
  m.trees[0][0].split_cond = 3.0f;  // already an integer: kept
  EXPECT_NE(DumpText(m, &fmap, false).find("0:[age<3] "), std::string::npos);
  m.trees[0][0].split_cond = -0.5f;  // floor -1, plus one
  EXPECT_NE(DumpText(m, &fmap, false).find("0:[age<0] "), std::string::npos);
}

TEST(DumpJson, FeatureMapTypes) {
  const FeatureMap fmap = ThreeFeatureMap();
  EXPECT_EQ(
      DumpJson(FmapTypesModel(), &fmap, false),
      "[\n"
      R"(  { "nodeid": 0, "depth": 0, "split": "age", "split_condition": 3, "yes": 1, "no": 2, "missing": 2 , "children": [)"
      "\n"
      R"(    { "nodeid": 1, "depth": 1, "split": "height", "split_condition": 1.75, "yes": 3, "no": 4, "missing": 3 , "children": [)"
      "\n"
      R"(      { "nodeid": 3, "depth": 2, "split": "7", "split_condition": 3, "yes": 7, "no": 8, "missing": 8 , "children": [)"
      "\n"
      R"(        { "nodeid": 7, "leaf": 0.100000001 }, )"
      "\n"
      R"(        { "nodeid": 8, "leaf": -2 })"
      "\n"
      R"(      ]}, )"
      "\n"
      R"(      { "nodeid": 4, "leaf": 1.00000001e-10 })"
      "\n"
      R"(    ]}, )"
      "\n"
      R"(    { "nodeid": 2, "depth": 1, "split": "smoker", "yes": 6, "no": 5 , "children": [)"
      "\n"
      R"(      { "nodeid": 5, "leaf": 3.25 }, )"
      "\n"
      R"(      { "nodeid": 6, "leaf": 12345678 })"
      "\n"
      R"(    ]})"
      "\n"
      R"(  ]})"
      "\n]\n");
}

TEST(DumpJson, IsValidJsonWithEscapedNames) {
  FeatureMap fmap;
  fmap.names = {"a\"b", "c\\d", "e"};
  fmap.types = {"q", "q", "i"};
  const nlohmann::json dump = nlohmann::json::parse(DumpJson(FmapTypesModel(), &fmap, true));
  EXPECT_EQ(dump[0]["split"], "a\"b");
  EXPECT_EQ(dump[0]["children"][0]["split"], "c\\d");
  EXPECT_FLOAT_EQ(dump[0]["gain"].get<float>(), 1.0f);
}

}  // namespace
}  // namespace ringboost

namespace ringboost {
namespace {

// A chain of 10,000 splits: the dumps walk it with a stack of their own, not the call stack, and
// keep XGBoost's layout (one more tab, or two more spaces, per level).
TEST(Dump, DeepChainWithoutRecursion) {
  Model m;
  m.num_feature = 1;
  m.num_rounds = 1;
  RegTree tree;
  int nid = 0;
  for (int i = 0; i < 10000; ++i) nid = tree.Split(nid, 0, 0.5f, false, 1.0f) + 1;  // the right
  m.trees = {tree};
  m.tree_group = {0};
  const std::string text = DumpText(m, nullptr, false);
  EXPECT_EQ(text.rfind("\n" + std::string(10000, '\t') + "20000:leaf=0\n"), text.size() - 10014);
  EXPECT_EQ(text.substr(0, 43), "booster[0]:\n0:[f0<0.5] yes=1,no=2,missing=2");
  const std::string json = DumpJson(m, nullptr, false);
  EXPECT_NE(json.find("\n" + std::string(20002, ' ') + "{ \"nodeid\": 20000, \"leaf\": 0 }"),
            std::string::npos);
  EXPECT_EQ(json.substr(json.size() - 8), "\n  ]}\n]\n");
  EXPECT_EQ(std::count(json.begin(), json.end(), '['), 10001);
  EXPECT_EQ(std::count(json.begin(), json.end(), ']'), 10001);
}

}  // namespace
}  // namespace ringboost
