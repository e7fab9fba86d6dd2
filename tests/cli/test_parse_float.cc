// parse_float=xgboost end to end: a model that XGBoost 1.7.4's CLI trained from a text file
// predicts here as it did there, a ringboost model trained with it reads its rows consistently,
// and a bad value names the key and its allowed values.
#include <gtest/gtest.h>

#include <string>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

// One feature; two rows sit at -1.603, which dmlc-core reads as -1.60299993 (correctly rounded:
// -1.60300004).
const char* kData = "0 0:-2\n0 0:-1.8\n1 0:-1.603\n1 0:-1.603\n1 0:-1\n";
const char* kConf =
    "objective = binary:logistic\nnum_round = 1\nmax_depth = 1\nmin_child_weight = 0\n"
    "eta = 1\ndata = \"t.txt\"\ntest:data = \"t.txt\"\n";

// What `xgboost` 1.7.4 wrote for kConf (tree_method=hist) from kData: one split at
// f0 < -1.60299993, the float its reader gave "-1.603", so the two rows on it go right.
const char* kXGBoostModel =
    R"({"learner":{"attributes":{},"feature_names":[],"feature_types":[],"gradient_booster":{"m)"
    R"(odel":{"gbtree_model_param":{"num_parallel_tree":"1","num_trees":"1","size_leaf_vector":)"
    R"("0"},"tree_info":[0],"trees":[{"base_weights":[2.2222222E-1,-6.666667E-1,8.5714287E-1],")"
    R"(categories":[],"categories_nodes":[],"categories_segments":[],"categories_sizes":[],"def)"
    R"(ault_left":[0,0,0],"id":0,"left_children":[1,-1,-1],"loss_changes":[1.8412697E0,0E0,0E0])"
    R"(,"parents":[2147483647,0,0],"right_children":[2,-1,-1],"split_conditions":[-1.6029999E0,)"
    R"(-6.666667E-1,8.5714287E-1],"split_indices":[0,0,0],"split_type":[0,0,0],"sum_hessian":[1)"
    R"(.25E0,5E-1,7.5E-1],"tree_param":{"num_deleted":"0","num_feature":"1","num_nodes":"3","si)"
    R"(ze_leaf_vector":"0"}}]},"name":"gbtree"},"learner_model_param":{"base_score":"5E-1","boo)"
    R"(st_from_average":"1","num_class":"0","num_feature":"1","num_target":"1"},"objective":{"n)"
    R"(ame":"binary:logistic","reg_loss_param":{"scale_pos_weight":"1"}}},"version":[1,7,4]})";
// `xgboost kConf task=pred` with that model.
const char* kXGBoostPredictions =
    "0.339243621\n0.339243621\n0.702063322\n0.702063322\n0.702063322\n";
// The same with the rows on the threshold read a float lower, below it.
const char* kExactPredictions = "0.339243621\n0.339243621\n0.339243621\n0.339243621\n0.702063322\n";

class ParseFloat : public ::testing::Test {
 protected:
  void SetUp() override {
    test::WriteFile(dir_.File("t.txt"), kData);
    test::WriteFile(dir_.File("t.conf"), kConf);
    test::WriteFile(dir_.File("x.json"), kXGBoostModel);
  }
  // pred.txt of `ringboost predict t.conf model_in=MODEL ARGS`.
  std::string Predict(const std::string& model, const std::string& args) {
    const test::RunResult r =
        test::RunRingboost(dir_.path(), "predict t.conf model_in=" + model + " " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return test::ReadFile(dir_.File("pred.txt"));
  }
  test::TempDir dir_;
};

TEST_F(ParseFloat, XGBoostReadingPredictsAsXGBoostsCli) {
  EXPECT_EQ(Predict("x.json", "parse_float=xgboost"), kXGBoostPredictions);
  EXPECT_EQ(Predict("x.json", ""), kExactPredictions);  // the default: exact
}

// Trained and predicted with the same reading, the rows on the threshold go the way training
// sent them; ringboost's hist puts the threshold where XGBoost's does.
TEST_F(ParseFloat, TrainingAndPredictionReadTheRowsAlike) {
  const test::RunResult r =
      test::RunRingboost(dir_.path(), "train t.conf parse_float=xgboost model_out=m.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Predict("m.json", "parse_float=xgboost"), kXGBoostPredictions);
  const test::RunResult dump = test::RunRingboost(dir_.path(), "dump m.json");
  EXPECT_NE(dump.out.find("[f0<-1.60299993]"), std::string::npos) << dump.out;
  EXPECT_EQ(Predict("m.json", "parse_float=exact"), kExactPredictions);
}

TEST_F(ParseFloat, BadValueNamesTheKeyAndItsValues) {
  const test::RunResult r = test::RunRingboost(dir_.path(), "train t.conf parse_float=bogus");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("parse_float=bogus: allowed values are exact, xgboost"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace ringboost
