// Models that leave ringboost and come back, through the executable: export, model_format=,
// predict / dump / continued training from XGBoost's files, importance.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.h"
#include "helpers.h"
#include "model/model.h"

namespace ringboost {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::vector<double> Numbers(const std::string& text) {
  std::istringstream in(text);
  std::vector<double> out;
  double v;
  while (in >> v) out.push_back(v);
  return out;
}

void ExpectNumbersClose(const std::string& ours, const std::string& theirs, double rel) {
  const std::vector<double> a = Numbers(ours), b = Numbers(theirs);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(a[i], b[i], rel * std::max(1.0, std::fabs(b[i]))) << "value " << i;
  }
}

class ModelFormats : public ::testing::Test {
 protected:
  void SetUp() override {
    RB_REQUIRE_SHARED_DATA();
    const std::string data = test::SharedDataDir() + "/agaricus/";
    for (const char* f : {"agaricus.txt.train", "agaricus.txt.test"}) {
      fs::copy_file(data + f, dir_.File(f));
    }
    fs::copy_file(Mushroom() + "/mushroom.conf", dir_.File("mushroom.conf"));
  }
  std::string Mushroom() const { return test::SharedGoldenDir() + "/xgboost-1.7.4-mushroom"; }
  std::string Golden(const std::string& name) const {
    return test::SharedGoldenDir() + "/xgboost-3.4.1/" + name;
  }
  test::RunResult Run(const std::string& args) { return test::RunRingboost(dir_.path(), args); }
  void RunOk(const std::string& args) {
    const test::RunResult r = Run(args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  }
  test::TempDir dir_;
};

// ringboost's mushroom model (its splits equal XGBoost's hist ones) exported to XGBoost's JSON
// has the trees of XGBoost 1.7.4's own JSON for that config.
TEST_F(ModelFormats, ExportedMushroomHasXGBoostsTrees) {
  RunOk("mushroom.conf nthread=1 model_out=rb.model");
  RunOk("export rb.model --format xgboost-json -o rb.json");
  const Json ours = Json::parse(test::ReadFile(dir_.File("rb.json")));
  const Json theirs = Json::parse(test::ReadFile(Mushroom() + "/hist/model.json"));
  const Json& a = ours["learner"]["gradient_booster"]["model"]["trees"];
  const Json& b = theirs["learner"]["gradient_booster"]["model"]["trees"];
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  for (std::size_t t = 0; t < 2; ++t) {
    for (const char* key : {"left_children", "right_children", "parents", "split_indices",
                            "default_left", "split_type"}) {
      EXPECT_EQ(a[t][key], b[t][key]) << "tree " << t << " " << key;
    }
    for (const char* key : {"split_conditions", "base_weights", "loss_changes", "sum_hessian"}) {
      ASSERT_EQ(a[t][key].size(), b[t][key].size());
      for (std::size_t i = 0; i < a[t][key].size(); ++i) {
        const double x = a[t][key][i], y = b[t][key][i];
        EXPECT_NEAR(x, y, 1e-6 * std::max(1.0, std::fabs(y))) << "tree " << t << " " << key;
      }
    }
  }
  EXPECT_EQ(ours["learner"]["learner_model_param"]["base_score"], "0.5");
  EXPECT_EQ(ours["learner"]["objective"]["name"], "binary:logistic");
}

TEST_F(ModelFormats, RoundTripsAreByteIdenticalAndModelFormatWritesXGBoost) {
  RunOk("mushroom.conf nthread=1 model_out=rb.model");
  for (const char* format : {"xgboost-json", "xgboost-ubj"}) {
    SCOPED_TRACE(format);
    RunOk(std::string("export rb.model --format ") + format + " -o x.out");
    RunOk("export x.out --format ringboost -o back.model");
    EXPECT_EQ(test::ReadFile(dir_.File("back.model")), test::ReadFile(dir_.File("rb.model")));
    // Written directly by training: the same bytes as the export.
    RunOk(std::string("mushroom.conf nthread=1 model_out=direct.out model_format=") + format);
    EXPECT_EQ(test::ReadFile(dir_.File("direct.out")), test::ReadFile(dir_.File("x.out")));
    // And it predicts as the native model.
    RunOk("predict mushroom.conf model_in=rb.model name_pred=p1.txt");
    RunOk("predict mushroom.conf model_in=x.out name_pred=p2.txt");
    EXPECT_EQ(test::ReadFile(dir_.File("p1.txt")), test::ReadFile(dir_.File("p2.txt")));
  }
  const test::RunResult bad = Run("export rb.model --format onnx -o x.out");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("'onnx' is unknown; use ringboost"), std::string::npos) << bad.err;
}

// model_out's name picks the format, as in XGBoost's CLI: .json XGBoost's JSON, .ubj (any case)
// UBJSON, else ringboost's own; model_format= wins over the name. Training continues from each
// to the same model.
TEST_F(ModelFormats, ModelOutEndingInJsonOrUbjIsXGBoostsFormat) {
  const std::string train = "mushroom.conf nthread=1 save_period=0 ";
  RunOk(train + "model_out=rb.model");
  RunOk("export rb.model --format xgboost-json -o x.expected");
  RunOk("export rb.model --format xgboost-ubj -o u.expected");
  RunOk(train + "model_out=x.json");
  EXPECT_EQ(test::ReadFile(dir_.File("x.json")), test::ReadFile(dir_.File("x.expected")));
  RunOk(train + "model_out=u.UBJ");
  EXPECT_EQ(test::ReadFile(dir_.File("u.UBJ")), test::ReadFile(dir_.File("u.expected")));
  RunOk(train + "model_out=r.json model_format=ringboost");
  EXPECT_EQ(test::ReadFile(dir_.File("r.json")), test::ReadFile(dir_.File("rb.model")));
  RunOk(train + "model_in=rb.model model_out=c.model");
  for (const char* start : {"x.json", "u.UBJ"}) {
    RunOk(train + "model_in=" + start + " model_out=c2.model");
    EXPECT_EQ(test::ReadFile(dir_.File("c2.model")), test::ReadFile(dir_.File("c.model"))) << start;
  }
}

// XGBoost 1.7.4's CLI (Debian's) predicts an export as ringboost does, base_score and all: it
// reads 3.x's bracketed "[100.0]" as 0.5 without a word, so one value is written bare.
TEST_F(ModelFormats, XGBoost17PredictsAnExportWithItsBaseScore) {
  if (std::system("command -v xgboost > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "Debian's xgboost CLI is not installed";
  }
  test::WriteFile(dir_.File("r.txt"), "101 0:1\n102 0:2\n103 0:3\n104 0:4\n");
  test::WriteFile(dir_.File("r.conf"),
                  "objective = reg:squarederror\nnum_round = 2\nnthread = 1\nbase_score = 100\n"
                  "data = r.txt\ntest:data = r.txt\n");
  for (const char* format : {"xgboost-json", "xgboost-ubj"}) {
    SCOPED_TRACE(format);
    RunOk(std::string("r.conf model_out=e.model model_format=") + format);
    RunOk("r.conf task=pred model_in=e.model name_pred=ours.txt");
    const std::string xgb = "cd '" + dir_.path() +
                            "' && xgboost r.conf task=pred model_in=e.model name_pred=theirs.txt "
                            "> xgb.log 2>&1";
    ASSERT_EQ(std::system(xgb.c_str()), 0) << test::ReadFile(dir_.File("xgb.log"));
    const std::string ours = test::ReadFile(dir_.File("ours.txt"));
    EXPECT_GT(Numbers(ours).at(0), 100.0) << ours;
    ExpectNumbersClose(ours, test::ReadFile(dir_.File("theirs.txt")), 1e-6);
  }
}

TEST_F(ModelFormats, XGBoostBinaryAndUbjPredictAndDumpThroughTheCli) {
  fs::copy_file(Mushroom() + "/0002.model", dir_.File("xgb.model"));
  RunOk("predict mushroom.conf model_in=xgb.model name_pred=p.txt");
  ExpectNumbersClose(test::ReadFile(dir_.File("p.txt")), test::ReadFile(Mushroom() + "/pred.txt"),
                     1e-6);
  const test::RunResult dump = Run("dump xgb.model --with-stats");
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(dump.out, test::ReadFile(Mushroom() + "/dump.stats.txt"));
  // XGBoost 1.x wrote binary models with and without the "binf" header; both are models.
  test::WriteFile(dir_.File("headless.model"), test::ReadFile(dir_.File("xgb.model")).substr(4));
  const test::RunResult headless = Run("dump headless.model --with-stats");
  EXPECT_EQ(headless.out, dump.out) << headless.err;
  const std::string ubj = Golden("agaricus-binary/model.ubj");
  const test::RunResult ubj_dump = Run("dump " + ubj + " --with-stats");
  EXPECT_EQ(ubj_dump.out, test::ReadFile(Golden("agaricus-binary/dump.txt"))) << ubj_dump.err;
  // An objective ringboost lacks: XGBoost's gamma model with its objective renamed.
  std::string other = test::ReadFile(Golden("machine-reg-gamma/model.json"));
  other.replace(other.find("\"reg:gamma\""), 11, "\"reg:expectileerror\"");
  test::WriteFile(dir_.File("other.json"), other);
  const test::RunResult refused = Run("dump other.json");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("objective 'reg:expectileerror'"), std::string::npos) << refused.err;
}

// Continued training from XGBoost 3.4.1's model: its 10 trees stay, 2 more are added.
TEST_F(ModelFormats, TrainingContinuesFromAnXGBoostModel) {
  RunOk("mushroom.conf nthread=1 num_round=2 model_in=" + Golden("agaricus-binary/model.ubj") +
        " model_out=more.model max_depth=3 eta=0.3");
  RunOk("export more.model -o more.json");
  const Json more = Json::parse(test::ReadFile(dir_.File("more.json")));
  const Json theirs = Json::parse(test::ReadFile(Golden("agaricus-binary/model.json")));
  const Json& a = more["learner"]["gradient_booster"]["model"]["trees"];
  const Json& b = theirs["learner"]["gradient_booster"]["model"]["trees"];
  ASSERT_EQ(a.size(), 12u);
  for (std::size_t t = 0; t < 10; ++t) {
    EXPECT_EQ(a[t]["split_indices"], b[t]["split_indices"]) << t;
    EXPECT_EQ(a[t]["left_children"], b[t]["left_children"]) << t;
  }
}

TEST_F(ModelFormats, ImportanceEqualsXGBoostsGetScore) {
  for (const char* name : {"agaricus-binary", "lightgbm-multiclass", "machine-reg-squarederror"}) {
    const Json expected = Json::parse(test::ReadFile(Golden(name) + "/importance.json"));
    for (const char* type : {"weight", "gain", "cover", "total_gain", "total_cover"}) {
      SCOPED_TRACE(std::string(name) + " " + type);
      const test::RunResult r = Run("importance " + Golden(name) + "/model.json --type " + type);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const Json ours = Json::parse(r.out);
      const Json& theirs = expected[type];
      ASSERT_EQ(ours.size(), theirs.size());
      for (auto it = theirs.begin(); it != theirs.end(); ++it) {
        ASSERT_TRUE(ours.contains(it.key())) << it.key();
        const double x = ours[it.key()], y = it.value();
        EXPECT_NEAR(x, y, 1e-5 * std::max(1.0, std::fabs(y))) << it.key();
      }
    }
  }
  const test::RunResult bad =
      Run("importance " + Golden("agaricus-binary/model.json") + " --type shap");
  EXPECT_NE(bad.err.find("use weight, gain, cover, total_gain or total_cover"), std::string::npos);
}

// The names of an fmap given at training are the model's: dumps, scores and exports use them
// with no --fmap, as XGBoost's use a booster's feature_names. An fmap naming fewer features than
// the data has (agaricus's featmap.txt names 126 of its 127 ids) records none, with a warning.
TEST_F(ModelFormats, TrainingFmapNamesTheModelsFeatures) {
  test::WriteFile(
      dir_.File("all.fmap"),
      test::ReadFile(test::SharedDataDir() + "/agaricus/featmap.txt") + "126\tunused\ti\n");
  RunOk("mushroom.conf nthread=1 fmap=all.fmap model_out=named.json");
  const test::RunResult plain = Run("importance named.json --type gain");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, Run("importance named.json --type gain --fmap all.fmap").out);
  EXPECT_NE(plain.out.find("\"odor=pungent\":"), std::string::npos) << plain.out;
  EXPECT_NE(Run("dump named.json").out.find("0:[odor=pungent<"), std::string::npos);
  RunOk("export named.json -o named.x.json");
  const Json exported = Json::parse(test::ReadFile(dir_.File("named.x.json")));
  ASSERT_EQ(exported["learner"]["feature_names"].size(), 127u);
  EXPECT_EQ(exported["learner"]["feature_names"][126], "unused");
  const test::RunResult short_map = Run("mushroom.conf nthread=1 fmap=" + test::SharedDataDir() +
                                        "/agaricus/featmap.txt model_out=unnamed.json");
  ASSERT_EQ(short_map.exit_code, 0) << short_map.err;
  EXPECT_NE(short_map.err.find("names 126 of the 127 features"), std::string::npos)
      << short_map.err;
  EXPECT_TRUE(Model::Load(dir_.File("unnamed.json")).feature_names.empty());
}

// A model_in whose names cover fewer features than the data of the continued training has keeps
// no names (a warning says so): the model written at the end is whole in every format.
TEST_F(ModelFormats, ContinuingOnWiderDataDropsTheModelsNames) {
  test::WriteFile(
      dir_.File("all.fmap"),
      test::ReadFile(test::SharedDataDir() + "/agaricus/featmap.txt") + "126\tunused\ti\n");
  RunOk("mushroom.conf nthread=1 save_period=0 fmap=all.fmap model_out=named.model");
  test::WriteFile(dir_.File("wide.txt"), "1 3:1 200:1\n0 5:1\n1 200:2\n0 9:1\n");
  const test::RunResult r =
      Run("mushroom.conf nthread=1 save_period=0 data=wide.txt "
          "model_in=named.model model_out=wide.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("model_in names 127 features but the data has 201: the names are not "
                       "kept (give fmap= to name them all)"),
            std::string::npos)
      << r.err;
  const Model wide = Model::Load(dir_.File("wide.json"));
  EXPECT_EQ(wide.num_feature, 201u);
  EXPECT_TRUE(wide.feature_names.empty());
}

// A model_in that XGBoost's JSON cannot hold (a leaf of ringboost's model that is not finite)
// stops a run writing model_out=*.json before its first round, not after its last.
TEST_F(ModelFormats, ModelOutTheModelCannotBeWrittenToIsFoundBeforeTraining) {
  RunOk("mushroom.conf nthread=1 save_period=0 num_round=1 model_out=r.model");
  std::string text = test::ReadFile(dir_.File("r.model"));
  const std::size_t leaf = text.find("\"leaf_values\":[") + 15;
  text.replace(leaf, text.find(',', leaf) - leaf, "\"Infinity\"");
  test::WriteFile(dir_.File("inf.model"), text);
  const test::RunResult r =
      Run("mushroom.conf nthread=1 save_period=0 model_in=inf.model model_out=x.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: model_out: the model cannot be written to x.json: tree 0 has a "
            "non-finite value, which XGBoost's JSON cannot hold\n");
  EXPECT_EQ(r.out, "");  // no round was trained
  EXPECT_FALSE(test::FileExists(dir_.File("x.json")));
  RunOk("mushroom.conf nthread=1 save_period=0 model_in=inf.model model_out=r2.model");
}

// task=pred with pred_contribs / pred_leaf: the golden model's first rows as XGBoost gave them.
TEST_F(ModelFormats, PredictWritesContributionsAndLeaves) {
  const std::string dir = Golden("lightgbm-multiclass");
  const std::string common = "predict mushroom.conf model_in=" + dir +
                             "/model.ubj test:data=" + dir +
                             "/test.libsvm?format=libsvm nthread=2 ";
  RunOk(common + "pred_contribs=1 name_pred=c.txt");
  RunOk(common + "pred_leaf=1 name_pred=l.txt");
  for (const auto& [ours, theirs] : {std::pair{"c.txt", "contribs.txt"}, {"l.txt", "leaf.txt"}}) {
    std::istringstream lines(test::ReadFile(dir_.File(ours)));
    std::string first, line;
    std::getline(lines, first);
    EXPECT_EQ(Numbers(first).size(), std::string(ours) == "c.txt" ? 5u * 29 : 40u);
    std::string head = first + "\n";
    const std::size_t want = Numbers(test::ReadFile(dir + "/" + theirs)).size();
    while (Numbers(head).size() < want && std::getline(lines, line)) head += line + "\n";
    ExpectNumbersClose(head, test::ReadFile(dir + "/" + theirs), 1e-5);
  }
  const test::RunResult both = Run(common + "pred_contribs=1 pred_leaf=1");
  EXPECT_NE(both.err.find("set one of them to 1"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace ringboost
