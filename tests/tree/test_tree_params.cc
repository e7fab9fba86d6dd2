// TreeParams::From: each setting the tree module reads, taken from the run's Params.
#include <gtest/gtest.h>

#include "common/params.h"
#include "tree/tree_params.h"

namespace ringboost {
namespace {

TEST(TreeParams, FromTakesEverySettingTheTreesRead) {
  Params p;
  p.eta = 0.1;
  p.gamma = 2.5;
  p.min_child_weight = 3.0;
  p.max_delta_step = 9.0;  // not read: the learner passes the objective's or the user's value
  p.lambda = 0.25;
  p.alpha = 0.5;
  p.max_depth = 4;
  p.max_leaves = 12;
  p.grow_policy = "lossguide";
  p.subsample = 0.75;
  p.colsample_bytree = 0.9;
  p.colsample_bylevel = 0.8;
  p.colsample_bynode = 0.7;
  p.seed = 42;
  p.verbosity = 3;
  p.quantized_grad = "on";
  const TreeParams t = TreeParams::From(p, 0.7f);
  EXPECT_EQ(t.split.eta, 0.1f);
  EXPECT_EQ(t.split.gamma, 2.5f);
  EXPECT_EQ(t.split.min_child_weight, 3.0f);
  EXPECT_EQ(t.split.max_delta_step, 0.7f);
  EXPECT_EQ(t.split.lambda, 0.25f);
  EXPECT_EQ(t.split.alpha, 0.5f);
  EXPECT_EQ(t.max_depth, 4);
  EXPECT_EQ(t.max_leaves, 12);
  EXPECT_EQ(t.grow_policy, GrowPolicy::kLossguide);
  EXPECT_EQ(t.subsample, 0.75);
  EXPECT_EQ(t.colsample_bytree, 0.9);
  EXPECT_EQ(t.colsample_bylevel, 0.8);
  EXPECT_EQ(t.colsample_bynode, 0.7);
  EXPECT_EQ(t.seed, 42u);
  EXPECT_TRUE(t.sync_phases);
  EXPECT_EQ(t.quantized_grad, QuantizedGrad::kOn);
  p.quantized_grad = "auto";
  EXPECT_EQ(TreeParams::From(p, 0.7f).quantized_grad, QuantizedGrad::kAuto);
}

// The defaults of Params give the defaults of TreeParams (XGBoost 1.7's).
TEST(TreeParams, DefaultsAgreeWithTheConfigsDefaults) {
  Params p;
  p.verbosity = 2;
  const TreeParams t = TreeParams::From(p, 0.0f);
  const TreeParams d;
  EXPECT_EQ(t.split.eta, d.split.eta);
  EXPECT_EQ(t.split.gamma, d.split.gamma);
  EXPECT_EQ(t.split.min_child_weight, d.split.min_child_weight);
  EXPECT_EQ(t.split.lambda, d.split.lambda);
  EXPECT_EQ(t.split.alpha, d.split.alpha);
  EXPECT_EQ(t.max_depth, d.max_depth);
  EXPECT_EQ(t.max_leaves, d.max_leaves);
  EXPECT_EQ(t.grow_policy, GrowPolicy::kDepthwise);
  EXPECT_EQ(t.subsample, d.subsample);
  EXPECT_EQ(t.seed, d.seed);
  EXPECT_FALSE(t.sync_phases);
  EXPECT_EQ(t.quantized_grad, d.quantized_grad);
}

}  // namespace
}  // namespace ringboost
