// XGBoost's model formats: ringboost -> XGBoost JSON/UBJSON -> ringboost is the same model byte
// for byte; XGBoost 3.4.1's golden models (JSON and UBJSON) and 1.7.4's binary ones predict and
// dump as XGBoost did; what ringboost cannot hold is refused by name.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "golden_xgboost.h"
#include "helpers.h"
#include "model/xgboost_doc.h"
#include "model/xgboost_format.h"
#include "model_builders.h"
#include "objective/objective.h"
#include "tree/predict.h"

namespace ringboost {
namespace {

using test::Golden341;

// SmallModel with the initial margin its objective gives base_score (softmax: the same), as in
// every trained model: XGBoost's document holds base_score only.
Model SmallModel() {
  Model m = test::SmallModel();
  m.base_margin = m.base_score;
  return m;
}

// SmallModel's four trees as one output group of `objective` (rank:*, survival:*, reg:*).
Model OneOutputModel(const std::string& objective) {
  Model m = SmallModel();
  m.objective = objective;
  m.num_class = 0;
  m.num_groups = 1;
  m.num_rounds = 4;
  m.tree_group.assign(m.trees.size(), 0);
  return m;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(XGBoostFormat, JsonRoundTripIsByteIdentical) {
  const Model m = SmallModel();
  const std::string json = ToXGBoostJson(m);
  EXPECT_EQ(DetectModelFormat(json), ModelFormat::kXGBoostJson);
  const Model back = ReadModelAnyFormat(json, "mem.json");
  test::ExpectSameModel(m, back);
  EXPECT_EQ(back.ToJson(), m.ToJson());
}

TEST(XGBoostFormat, UbjRoundTripIsByteIdentical) {
  const Model m = SmallModel();
  const std::string ubj = ToXGBoostUbj(m);
  EXPECT_EQ(DetectModelFormat(ubj), ModelFormat::kXGBoostUbj);
  EXPECT_EQ(ReadModelAnyFormat(ubj, "mem.ubj").ToJson(), m.ToJson());
}

TEST(XGBoostFormat, UbjIsTheJsonDocumentInXGBoostsLayout) {
  const Model m = SmallModel();
  const std::string ubj = ToXGBoostUbj(m);
  EXPECT_EQ(xgb::Json::from_ubjson(ubj), xgb::Json::parse(ToXGBoostJson(m)));
  // int64 key lengths, typed tree arrays with int64 counts, as XGBoost writes them.
  EXPECT_EQ(ubj.substr(0, 2), "{L");
  EXPECT_NE(ubj.find(std::string("base_weights[$d#L\0\0\0\0\0\0\0\x05", 25)), std::string::npos);
  EXPECT_NE(ubj.find(std::string("left_children[$l#L", 18)), std::string::npos);
  EXPECT_NE(ubj.find(std::string("default_left[$U#L", 17)), std::string::npos);
}

TEST(XGBoostFormat, DocumentHasXGBoostsKeysAndValues) {
  const Model m = SmallModel();
  const xgb::Json doc = xgb::Json::parse(ToXGBoostJson(m));
  const xgb::Json& learner = doc.at("learner");
  EXPECT_EQ(doc.at("version"), xgb::Json::parse("[3,4,1]"));
  EXPECT_EQ(learner.at("objective").at("name"), "multi:softmax");
  EXPECT_EQ(learner.at("learner_model_param").at("base_score"), "0.5");  // one value: bare
  EXPECT_EQ(learner.at("learner_model_param").at("num_class"), "2");
  EXPECT_EQ(learner.at("attributes").at("best_iteration"), "1");
  const xgb::Json& gbtree = learner.at("gradient_booster").at("model");
  EXPECT_EQ(gbtree.at("tree_info"), xgb::Json::parse("[0,1,0,1]"));
  EXPECT_EQ(gbtree.at("iteration_indptr"), xgb::Json::parse("[0,2,4]"));
  const xgb::Json& tree = gbtree.at("trees")[0];
  // A leaf's value in split_conditions; the root's parent is INT32_MAX; missing goes left.
  EXPECT_EQ(tree.at("parents")[0], 2147483647);
  EXPECT_EQ(tree.at("split_conditions")[1].get<float>(), 1.0f / 3.0f);
  EXPECT_EQ(tree.at("split_conditions")[0].get<float>(), 0.1f);
  EXPECT_EQ(tree.at("default_left")[0], 1);
  EXPECT_EQ(tree.at("tree_param").at("num_nodes"), "5");
}

// rank:map is XGBoost 3.x's topk LambdaRankMAP: its block says so (as 3.4.1 writes it after
// training with lambdarank_num_pair_per_sample=32), and the model comes back as rank:map.
TEST(XGBoostFormat, RankMapHasXGBoostsLambdaRankParam) {
  const Model m = OneOutputModel("rank:map");
  const xgb::Json doc = xgb::Json::parse(ToXGBoostJson(m));
  const xgb::Json& param = doc.at("learner").at("objective").at("lambdarank_param");
  EXPECT_EQ(doc.at("learner").at("objective").at("name"), "rank:map");
  EXPECT_EQ(param.at("lambdarank_pair_method"), "topk");
  EXPECT_EQ(param.at("lambdarank_num_pair_per_sample"), "32");
  EXPECT_EQ(param.at("lambdarank_normalization"), "1");
  EXPECT_EQ(param.at("lambdarank_score_normalization"), "1");
  EXPECT_EQ(ReadModelAnyFormat(ToXGBoostJson(m), "mem.json").objective, "rank:map");
}

// survival:aft carries XGBoost's aft_loss_param block (XGBoost 3.2.0 and 3.4.1 write it so, and
// their AFTObj::LoadConfig fails, \"Invalid cast, from Null to Object\", on a document without
// it), with the distribution and scale the model was trained with; no reg_loss_param.
TEST(XGBoostFormat, AftHasXGBoostsAftLossParam) {
  Model m = OneOutputModel("survival:aft");
  m.config =
      "objective=survival:aft\naft_loss_distribution=logistic\n"
      "aft_loss_distribution_scale=1.2\n";
  const xgb::Json obj = xgb::Json::parse(ToXGBoostJson(m)).at("learner").at("objective");
  EXPECT_EQ(obj.at("name"), "survival:aft");
  EXPECT_EQ(obj.at("aft_loss_param").at("aft_loss_distribution"), "logistic");
  EXPECT_EQ(obj.at("aft_loss_param").at("aft_loss_distribution_scale"), "1.2");
  EXPECT_EQ(obj.size(), 2u);  // no reg_loss_param
  EXPECT_EQ(ReadModelAnyFormat(ToXGBoostJson(m), "mem.json").objective, "survival:aft");
}

TEST(XGBoostFormat, PerGroupBaseMarginsSurviveBothFormats) {
  Model m = SmallModel();
  m.base_margins = {0.25f, -0.125f};
  EXPECT_NE(m.ToJson().find("\"version\":2"), std::string::npos);
  test::ExpectSameModel(m, Model::FromJson(m.ToJson(), "mem"));
  EXPECT_EQ(ReadModelAnyFormat(ToXGBoostJson(m), "mem").base_margins, m.base_margins);
}

// reg:quantileerror with three alphas: three output groups, no classes. XGBoost calls them
// num_target (it loads such a document with quantile_alpha listing three alphas).
TEST(XGBoostFormat, MultiQuantileModelsSurviveBothFormats) {
  Model m = SmallModel();
  m.objective = "reg:quantileerror";
  m.num_class = 0;
  m.num_groups = 3;
  m.num_rounds = 1;
  m.best_iteration = 0;
  m.trees.resize(3);
  m.tree_group = {0, 1, 2};
  m.base_margins = {-1.0f, 0.5f, 2.0f};
  m.base_score = m.base_margin = -1.0f;  // the first output's, as training estimates them
  const xgb::Json doc = xgb::Json::parse(ToXGBoostJson(m));
  const xgb::Json& param = doc.at("learner").at("learner_model_param");
  EXPECT_EQ(param.at("num_target"), "3");
  EXPECT_EQ(param.at("num_class"), "0");
  EXPECT_EQ(param.at("base_score"), "[-1.0,0.5,2.0]");
  EXPECT_EQ(ReadModelAnyFormat(ToXGBoostJson(m), "mem.json").ToJson(), m.ToJson());
  EXPECT_EQ(ReadModelAnyFormat(ToXGBoostUbj(m), "mem.ubj").ToJson(), m.ToJson());
  m.objective = "reg:squarederror";  // no objective of ringboost has several targets
  EXPECT_NE(ErrorOf([&] {
              ReadModelAnyFormat(ToXGBoostJson(m), "mem.json");
            }).find("multi-target models (num_target > 1) cannot be read"),
            std::string::npos);
}

TEST(XGBoostFormat, RefusesWhatRingboostCannotHold) {
  const std::string json = ToXGBoostJson(SmallModel());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = json;
    s.replace(s.find(from), from.size(), to);
    return ErrorOf([&] { ReadModelAnyFormat(s, "m.json"); });
  };
  EXPECT_NE(with("\"name\":\"gbtree\"", "\"name\":\"dart\"").find("booster 'dart'"),
            std::string::npos);
  EXPECT_NE(with("\"name\":\"gbtree\"", "\"name\":\"gblinear\"").find("booster 'gblinear'"),
            std::string::npos);
  EXPECT_NE(
      with("\"multi:softmax\"", "\"reg:expectileerror\"").find("objective 'reg:expectileerror'"),
      std::string::npos);
  // A split_type 1 without its categories, and categories of a leaf.
  EXPECT_NE(with("\"split_type\":[0", "\"split_type\":[1").find("split_type 1 but no categories"),
            std::string::npos);
  EXPECT_NE(with("\"categories_nodes\":[]", "\"categories_nodes\":[1]").find("same"),
            std::string::npos);
  EXPECT_NE(with("\"num_parallel_tree\":\"1\"", "\"num_parallel_tree\":\"4\"").find("forest"),
            std::string::npos);
  EXPECT_NE(with("\"feature_names\":[\"a\",", "\"feature_names\":[")
                .find("m.json: XGBoost model: feature_names has 2 names for 3 features"),
            std::string::npos);
  const std::string trees = std::to_string(SmallModel().trees.size());
  EXPECT_NE(
      with("\"num_trees\":\"" + trees + "\"", "\"num_trees\":\"100000\"")
          .find(
              "m.json: XGBoost model: gbtree_model_param.num_trees is 100000 but the model holds " +
              trees + " trees"),
      std::string::npos);
  // A broken tree is caught by ringboost's own checks, naming the file.
  EXPECT_NE(with("\"left_children\":[1", "\"left_children\":[0").find("m.json: tree 0"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { ReadModelAnyFormat("binf\1\2", "m.model"); }).find("m.model: truncated"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              ReadModelAnyFormat(ToXGBoostUbj(SmallModel()).substr(0, 300), "m.ubj");
            }).find("m.ubj: not a valid UBJSON model"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf([&] { WriteModelAs(SmallModel(), ModelFormat::kXGBoostBinary); }).find("read only"),
      std::string::npos);
  EXPECT_NE(ErrorOf([] { ModelFormatFromName("onnx"); }).find("xgboost-ubj"), std::string::npos);
}

// XGBoost 3.4.1 saves a DART model as booster "gbtree" with a weight per tree (`weight_drop`)
// that scales the tree's leaves at prediction: a model trained with rate_drop=0.5 predicted
// margin 1.4026 in XGBoost where ringboost, ignoring the weights, gave 2.3158. Weights of 1 (no
// tree was ever dropped) change nothing and are read; any other is refused by name.
TEST(XGBoostFormat, RefusesTreeWeightsOfDart) {
  const Model m = SmallModel();
  const std::size_t n = m.trees.size();
  auto with_weights = [&](const xgb::Json& weights) {
    xgb::Json doc = xgb::Json::parse(ToXGBoostJson(m));
    doc["learner"]["gradient_booster"]["model"]["weight_drop"] = weights;
    return doc.dump();
  };
  const Model same = ReadModelAnyFormat(with_weights(std::vector<float>(n, 1.0f)), "ones.json");
  EXPECT_EQ(same.ToJson(), m.ToJson());
  std::vector<float> weights(n, 1.0f);
  weights[1] = 0.5f;
  EXPECT_NE(ErrorOf([&] {
              ReadModelAnyFormat(with_weights(weights), "dart.json");
            }).find("dart.json: XGBoost model: tree 1 has weight 0.5 (weight_drop: a DART model"),
            std::string::npos);
  const std::string ubj = xgb::WriteUbj(xgb::Json::parse(with_weights(weights)));
  EXPECT_NE(
      ErrorOf([&] { ReadModelAnyFormat(ubj, "dart.ubj"); }).find("dart.ubj: XGBoost model: tree 1"),
      std::string::npos);
  EXPECT_NE(
      ErrorOf([&] { ReadModelAnyFormat(with_weights(std::vector<float>(n + 1, 1.0f)), "w.json"); })
          .find("weight_drop has " + std::to_string(n + 1) + " entries for " + std::to_string(n) +
                " trees"),
      std::string::npos);
}

// Values an XGBoost file can hold and ringboost refuses: the message names the file and the value.
TEST(XGBoostFormat, NamesTheFileAndValueItRefuses) {
  const std::string json = ToXGBoostJson(OneOutputModel("binary:logistic"));
  auto with = [&](const std::function<void(xgb::Json*)>& change) {
    xgb::Json doc = xgb::Json::parse(json);
    change(&doc);
    return ErrorOf([&] { ReadModelAnyFormat(doc.dump(), "m.json"); });
  };
  // A probability of 1 has no logistic margin; the message used to name neither file nor key.
  EXPECT_NE(with([](xgb::Json* d) {
              (*d)["learner"]["learner_model_param"]["base_score"] = "[1E0]";
            }).find("m.json: XGBoost model: learner_model_param.base_score '[1E0]': base_score=1"),
            std::string::npos);
  // best_iteration is a round: "2.7" used to read as round 2, and "1e30" overflowed the cast.
  for (const char* best : {"2.7", "1e30", "-2"}) {
    EXPECT_NE(with([&](xgb::Json* d) { (*d)["learner"]["attributes"]["best_iteration"] = best; })
                  .find("m.json: XGBoost model: attributes.best_iteration \"" + std::string(best) +
                        "\" is not a round number"),
              std::string::npos)
        << best;
  }
  // XGBoost writes a leaf that overflowed as the bare literal NaN or Infinity, which JSON lacks:
  // said so, not "a truncated file". (The first condition is the root's, a numeric split.)
  auto leaf_as = [&](const std::string& literal) {
    std::string s = json;
    const std::size_t at = s.find("\"split_conditions\":[") + 20;
    s.replace(at, s.find_first_of(",]", at) - at, literal);
    return ErrorOf([&] { ReadModelAnyFormat(s, "m.json"); });
  };
  for (const char* literal : {"NaN", "Infinity", "-Infinity"}) {
    EXPECT_NE(leaf_as(literal).find(
                  "m.json: XGBoost model: tree 0: split_conditions: NaN or Infinity, which is "
                  "not a finite float"),
              std::string::npos)
        << literal;
  }
  EXPECT_NE(leaf_as("Nope").find("m.json: not valid JSON"), std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              ReadModelAnyFormat(json.substr(0, json.find("\"split_conditions\":[") + 22) + "Na",
                                 "m.json");
            }).find("m.json: not valid JSON"),
            std::string::npos);
}

// XGBoost 1.7 writes NaN as the split_conditions entry of a categorical split (3.x writes the
// smallest denormal): such models were refused as "not valid JSON". The fixture is what XGBoost
// 1.7.4 saved (Booster.save_raw("json")) for reg:squarederror, base_score 0.5, eta 0.5, 2
// rounds of max_depth 2, f0 categorical (codes 0-5, max_cat_to_onehot=1) and f1 numeric; the
// margins are its predict(output_margin=True) for the rows below: codes 7 (unseen), -1, 1e7 and
// missing go left as {1, 4} do, 3.9 is code 3.
TEST(XGBoostFormat, ReadsXGBoost17CategoricalSplitsWithNaNConditions) {
  const std::string model17 =
      R"json({"learner":{"attributes":{"best_iteration":"1","best_ntree_limit":"2"},"feature_names":[],)json"
      R"json("feature_types":["c","q"],"gradient_booster":{"model":{"gbtree_model_param":{"num_parallel)json"
      R"json(_tree":"1","num_trees":"2","size_leaf_vector":"0"},"tree_info":[0,0],"trees":[{"base_weigh)json"
      R"json(ts":[3.1781426E-1,1.5333209E0,-4.334804E-1,5.771836E-1,9.4593453E-1,-3.941603E-1,1.8339589)json"
      R"json(E-3],"categories":[0,2,3,5],"categories_nodes":[0],"categories_segments":[0],"categories_s)json"
      R"json(izes":[4],"default_left":[1,0,0,0,0,0,0],"id":0,"left_children":[1,3,5,-1,-1,-1,-1],"loss_)json"
      R"json(changes":[1.8421861E2,8.278336E0,1.9392616E1,0E0,0E0,0E0,0E0],"parents":[2147483647,0,0,1,)json"
      R"json(1,2,2],"right_children":[2,4,6,-1,-1,-1,-1],"split_conditions":[NaN,5.9615433E-2,2.2575027)json"
      R"json(E-1,5.771836E-1,9.4593453E-1,-3.941603E-1,1.8339589E-3],"split_indices":[0,1,1,0,0,0,0],"s)json"
      R"json(plit_type":[1,0,0,0,0,0,0],"sum_hessian":[2E2,7.6E1,1.24E2,3.9E1,3.7E1,6.8E1,5.6E1],"tree_)json"
      R"json(param":{"num_deleted":"0","num_feature":"2","num_nodes":"7","size_leaf_vector":"0"}},{"bas)json"
      R"json(e_weights":[1.6453296E-1,7.8644127E-1,-2.1987881E-1,3.2394817E-1,6.1865586E-1,-1.7323321E-)json"
      R"json(1,1.3772675E-1],"categories":[0,2,3,5],"categories_nodes":[0],"categories_segments":[0],"c)json"
      R"json(ategories_sizes":[4],"default_left":[1,0,0,0,0,0,0],"id":1,"left_children":[1,3,5,-1,-1,-1)json"
      R"json(,-1],"loss_changes":[4.822576E1,4.0082207E0,7.9333024E0,0E0,0E0,0E0,0E0],"parents":[214748)json"
      R"json(3647,0,0,1,1,2,2],"right_children":[2,4,6,-1,-1,-1,-1],"split_conditions":[NaN,7.689652E-1)json"
      R"json(,9.970884E-1,3.2394817E-1,6.1865586E-1,-1.7323321E-1,1.3772675E-1],"split_indices":[0,1,1,)json"
      R"json(0,0,0,0],"split_type":[1,0,0,0,0,0,0],"sum_hessian":[2E2,7.6E1,1.24E2,6E1,1.6E1,9.9E1,2.5E)json"
      R"json(1],"tree_param":{"num_deleted":"0","num_feature":"2","num_nodes":"7","size_leaf_vector":"0)json"
      R"json("}}]},"name":"gbtree"},"learner_model_param":{"base_score":"5E-1","boost_from_average":"0")json"
      R"json(,"num_class":"0","num_feature":"2","num_target":"1"},"objective":{"name":"reg:squarederror)json"
      R"json(","reg_loss_param":{"scale_pos_weight":"1"}}},"version":[1,7,4]})json";
  ASSERT_NE(model17.find("\"split_conditions\":[NaN,"), std::string::npos);
  const Model m = ReadModelAnyFormat(model17, "cat17.json");
  ASSERT_TRUE(m.trees[0][0].is_cat);
  EXPECT_EQ(m.trees[0][0].split_cond, std::numeric_limits<float>::denorm_min());
  // XGBoost 1.7's UBJSON holds the same NaN as a float32 (it read as "null is not a finite
  // float"): the same model.
  xgb::Json doc = xgb::Json::parse(xgb::NonFiniteLiteralsToNull(model17));
  for (xgb::Json& tree : doc["learner"]["gradient_booster"]["model"]["trees"]) {
    tree["split_conditions"][0] = std::numeric_limits<double>::quiet_NaN();
  }
  EXPECT_EQ(ReadModelAnyFormat(xgb::WriteUbj(doc), "cat17.ubj").ToJson(), m.ToJson());
  test::TempDir dir;
  const std::string rows = test::WriteFile(dir.File("rows.libsvm"),
                                           "0 0:1 1:0.3\n0 0:4 1:-1\n0 0:0 1:0\n0 0:5 1:2\n"
                                           "0 0:7 1:0.1\n0 0:-1 1:0.1\n0 0:1e7 1:0.1\n0 1:0.1\n"
                                           "0 0:2\n0 0:3.9 1:0.2\n");
  test::ExpectClose(PredictMargin(m, LoadData(rows + "?format=libsvm", LoadOptions()), 0, 1),
                    {1.7698826789855957, 1.4011317491531372, -0.06739351153373718,
                     0.6395606994628906, 1.7698826789855957, 1.7698826789855957, 1.7698826789855957,
                     1.7698826789855957, 0.6395606994628906, -0.06739351153373718},
                    1e-6, "margin");
  // NaN at a leaf (node 3) or a numeric split (node 1) is still refused, naming the array.
  for (const char* value : {"5.771836E-1", "5.9615433E-2"}) {
    std::string bad = model17;
    bad.replace(bad.find(value, bad.find("split_conditions")), std::strlen(value), "NaN");
    EXPECT_NE(ErrorOf([&] {
                ReadModelAnyFormat(bad, "bad.json");
              }).find("bad.json: XGBoost model: tree 0: split_conditions: NaN or Infinity"),
              std::string::npos)
        << value;
  }
}

// nlohmann's UBJSON reader recurses once per level: a file of '[' is refused before it is read.
// A trained model an XGBoost format cannot hold (a leaf that is not finite) is not lost at the
// end of a run: it goes to `path`.ringboost.model in ringboost's format, and nothing to `path`.
TEST(XGBoostFormat, ModelXGBoostCannotHoldIsSavedInRingboostsFormat) {
  test::TempDir dir;
  Model m = SmallModel();
  m.trees[1][1].leaf_value = std::numeric_limits<float>::infinity();
  const std::string path = dir.File("m.json");
  EXPECT_EQ(ErrorOf([&] { SaveModelAs(m, path, ModelFormat::kXGBoostJson); }),
            path +
                ": tree 1 has a non-finite value, which XGBoost's JSON cannot hold; the model "
                "is written in ringboost's format to '" +
                path + ".ringboost.model' instead");
  EXPECT_FALSE(test::FileExists(path));
  EXPECT_EQ(Model::Load(path + ".ringboost.model").ToJson(), m.ToJson());
  m.trees[1][1].leaf_value = 0.5f;
  SaveModelAs(m, path, ModelFormat::kXGBoostJson);
  EXPECT_EQ(ReadModelAnyFormat(test::ReadFile(path), path).ToJson(), m.ToJson());
}

TEST(XGBoostFormat, RefusesDeepUbjBeforeReadingIt) {
  const std::string ubj = std::string(
                              "{i\x01"
                              "a") +
                          std::string(100000, '[');
  EXPECT_EQ(DetectModelFormat(ubj), ModelFormat::kXGBoostUbj);
  EXPECT_NE(ErrorOf([&] {
              ReadModelAnyFormat(ubj, "u.ubj");
            }).find("u.ubj: not a model (UBJSON nested more than 16 levels deep"),
            std::string::npos);
}

// A count the file cannot hold is refused before anything is built for it: a typed array of
// null or true declares 2^40 values in 18 bytes (and holds them in none); typed arrays of null
// within the file's size, but more of them than it has bytes, are refused too.
TEST(XGBoostFormat, RefusesUbjCountsTheFileCannotHold) {
  const std::string count("\0\0\x01\0\0\0\0\0", 8);  // 2^40, big-endian
  for (char type : {'Z', 'T', 'i'}) {
    const std::string ubj = std::string(
                                "{i\x01"
                                "a[$") +
                            type + "#L" + count + "}";
    EXPECT_EQ(ErrorOf([&] { ReadModelAnyFormat(ubj, "z.ubj"); }),
              "z.ubj: not a model (UBJSON declares 1099511627776 values in a file of 18 bytes)")
        << type;
  }
  std::string nulls =
      "{i\x01"
      "a[#i\x03";
  for (int i = 0; i < 3; ++i) nulls += "[$Z#i\x14";  // 20 nulls each
  nulls += "}";
  EXPECT_EQ(ErrorOf([&] { ReadModelAnyFormat(nulls, "z.ubj"); }),
            "z.ubj: not a model (UBJSON holds more values than its 27 bytes: a typed array of "
            "null, true or false, which XGBoost never writes)");
}

// Deep JSON text is refused before it is parsed (a message once dumped it, recursively), and a
// message names a long value by its kind and size instead of printing it.
TEST(XGBoostFormat, RefusesDeepJsonAndKeepsMessagesShort) {
  const int depth = 100000;
  const std::string deep =
      "{\"learner\":{\"gradient_booster\":{\"name\":" + std::string(depth, '[') +
      std::string(depth, ']') + "}}}";
  EXPECT_NE(ErrorOf([&] {
              ReadModelAnyFormat(deep, "x.json");
            }).find("x.json: not a model (JSON nested more than 16 levels deep"),
            std::string::npos);
  std::string zeros = "0";
  for (int i = 1; i < 10000; ++i) zeros += ",0";
  const std::string wide = "{\"learner\":{\"gradient_booster\":{\"name\":[" + zeros + "]}}}";
  EXPECT_EQ(ErrorOf([&] { ReadModelAnyFormat(wide, "x.json"); }),
            "x.json: XGBoost model: name: expected a string, got an array of 10000 values");
  // ringboost's own reader too: a long string where a number is due is cut after 40 characters.
  std::string json = SmallModel().ToJson();
  const std::size_t at = json.find("\"split_conditions\":[") + 20;
  json.replace(at, json.find(',', at) - at, "\"" + std::string(5000, 'x') + "\"");
  EXPECT_EQ(ErrorOf([&] { ReadModelAnyFormat(json, "m.json"); }),
            "m.json: tree 0: split_conditions: expected a number, got \"" + std::string(40, 'x') +
                "\"...");
}

class GoldenXGBoost341 : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = Golden341(GetParam());
    if (dir_.empty()) GTEST_SKIP() << "../shared/golden not found";
  }
  std::string dir_;
};

TEST_P(GoldenXGBoost341, JsonAndUbjPredictAndDumpAsXGBoost) {
  const Model json = Model::Load(dir_ + "/model.json");
  const Model ubj = Model::Load(dir_ + "/model.ubj");
  EXPECT_EQ(json.ToJson(), ubj.ToJson());
  EXPECT_EQ(DumpText(json, nullptr, true), test::ReadFile(dir_ + "/dump.txt"));
  const DataSet rows = test::GoldenTestRows(dir_);
  std::vector<float> margins = PredictMargin(json, rows, 0, 2);
  test::ExpectClose(margins, test::ReadNumbers(dir_ + "/margin.txt"), 1e-6, "margin");
  Params params;
  params.objective = json.objective;
  params.num_class = json.num_class;
  Objective::Create(params)->PredTransform(&margins);
  test::ExpectClose(margins, test::ReadNumbers(dir_ + "/pred.txt"), 1e-6, "prediction");
}

INSTANTIATE_TEST_SUITE_P(Readable, GoldenXGBoost341,
                         ::testing::ValuesIn(test::ReadableGoldenModels()), [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = std::isalnum(c) ? c : '_';
                           return name;
                         });

// XGBoost 3.4.1's categorical model comes in, and goes back out with every tree array XGBoost
// wrote (split_type, the four categories arrays, the 1e-45 conditions of categorical nodes) and
// feature_types c for the categorical feature; read back, it is the same model byte for byte.
TEST(GoldenXGBoost341Categorical, ExportWritesTheTreesAsXGBoost) {
  const std::string dir = Golden341("machine-categorical");
  if (dir.empty()) GTEST_SKIP() << "../shared/golden not found";
  const Model model = Model::Load(dir + "/model.json");
  const xgb::Json golden = xgb::Json::parse(test::ReadFile(dir + "/model.json"));
  const std::string exported = ToXGBoostJson(model);
  const xgb::Json ours = xgb::Json::parse(exported);
  const xgb::Json& golden_trees =
      golden.at("learner").at("gradient_booster").at("model").at("trees");
  const xgb::Json& our_trees = ours.at("learner").at("gradient_booster").at("model").at("trees");
  ASSERT_EQ(our_trees.size(), golden_trees.size());
  int categorical_nodes = 0;
  for (std::size_t t = 0; t < our_trees.size(); ++t) {
    for (const char* key :
         {"split_type", "categories", "categories_nodes", "categories_segments", "categories_sizes",
          "split_conditions", "default_left", "left_children", "right_children", "split_indices"}) {
      EXPECT_EQ(our_trees[t].at(key), golden_trees[t].at(key)) << "tree " << t << " " << key;
    }
    categorical_nodes += static_cast<int>(golden_trees[t].at("categories_nodes").size());
  }
  EXPECT_GT(categorical_nodes, 0);
  EXPECT_EQ(ours.at("learner").at("feature_types"),
            xgb::Json::parse(R"(["c","q","q","q","q","q","q"])"));
  EXPECT_EQ(ReadModelAnyFormat(exported, "x.json").ToJson(), model.ToJson());
  EXPECT_EQ(ReadModelAnyFormat(ToXGBoostUbj(model), "x.ubj").ToJson(), model.ToJson());
  EXPECT_EQ(Model::FromJson(model.ToJson(), "own").ToJson(), model.ToJson());
  EXPECT_NE(model.ToJson().find("\"version\":3"), std::string::npos);  // older readers refuse
}

// The README's objectives ringboost may lack: each either comes in and predicts as XGBoost did
// (once ringboost has it), or is refused by name.
TEST(GoldenXGBoost341Refused, ObjectivesAndSplitsRingboostLacksAreNamed) {
  if (Golden341("").empty()) GTEST_SKIP() << "../shared/golden not found";
  for (const char* name : {"reg-absoluteerror", "reg-quantileerror", "reg-gamma", "reg-tweedie",
                           "reg-pseudohubererror"}) {
    const std::string dir = Golden341(std::string("machine-") + name);
    for (const char* file : {"/model.json", "/model.ubj"}) {
      std::string error;
      try {
        const Model model = Model::Load(dir + file);
        test::ExpectClose(PredictMargin(model, test::GoldenTestRows(dir), 0, 1),
                          test::ReadNumbers(dir + "/margin.txt"), 1e-6, dir + file);
      } catch (const Error& e) {
        error = e.what();
      }
      if (!error.empty()) {
        EXPECT_NE(error.find(dir + file + ": XGBoost model: objective 'reg:"), std::string::npos)
            << error;
      }
    }
  }
}

TEST(GoldenXGBoost174Binary, PredictsAndDumpsAsXGBoost) {
  RB_REQUIRE_SHARED_DATA();
  const std::string dir = test::SharedGoldenDir() + "/xgboost-1.7.4-mushroom";
  const DataSet rows =
      LoadData(test::SharedDataDir() + "/agaricus/agaricus.txt.test?format=libsvm", LoadOptions());
  for (const char* sub : {"", "hist/"}) {
    SCOPED_TRACE(sub);
    const std::string bytes = test::ReadFile(dir + "/" + sub + "0002.model");
    EXPECT_EQ(DetectModelFormat(bytes), ModelFormat::kXGBoostBinary);
    const Model model = Model::Load(dir + "/" + sub + "0002.model");
    EXPECT_EQ(model.ToJson(), Model::Load(dir + "/" + sub + "model.json").ToJson());
    EXPECT_EQ(DumpText(model, nullptr, true), test::ReadFile(dir + "/" + sub + "dump.stats.txt"));
    std::vector<float> p = PredictMargin(model, rows, 0, 1);
    Params params;
    params.objective = model.objective;
    Objective::Create(params)->PredTransform(&p);
    test::ExpectClose(p, test::ReadNumbers(dir + "/" + sub + "pred.txt"), 1e-6, "prediction");
  }
  const Model exact = Model::Load(dir + "/0002.model");
  test::ExpectClose(PredictMargin(exact, rows, 0, 1), test::ReadNumbers(dir + "/pred_margin.txt"),
                    1e-6, "margin");
}

}  // namespace
}  // namespace ringboost
