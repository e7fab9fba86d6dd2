// DeviceTreeGrower grows TreeGrower's trees (the CPU reference), node for node, bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "device_test_helpers.h"
#include "tree/constraints.h"
#include "tree/hist/grower.h"
#ifdef RINGBOOST_USE_CUDA
#include "tree/gpu_hist/grower.h"
#endif

namespace ringboost {
namespace {

#ifdef RINGBOOST_USE_CUDA
void ExpectSameTree(const RegTree& a, const RegTree& b, const std::string& where) {
  ASSERT_EQ(a.NumNodes(), b.NumNodes()) << where;
  for (int i = 0; i < a.NumNodes(); ++i) {
    const TreeNode &x = a[i], &y = b[i];
    EXPECT_EQ(x.left, y.left) << where << " node " << i;
    EXPECT_EQ(x.feature, y.feature) << where << " node " << i;
    EXPECT_EQ(x.default_left, y.default_left) << where << " node " << i;
    EXPECT_EQ(x.is_cat, y.is_cat) << where << " node " << i;
    EXPECT_EQ(x.categories, y.categories) << where << " node " << i;
    for (auto [p, q] : {std::pair{x.split_cond, y.split_cond},
                        {x.leaf_value, y.leaf_value},
                        {x.base_weight, y.base_weight},
                        {x.gain, y.gain},
                        {x.sum_hess, y.sum_hess}}) {
      EXPECT_EQ(std::memcmp(&p, &q, sizeof(float)), 0) << where << " node " << i;
    }
  }
}

// Returns the categorical splits of the CPU's trees.
int ExpectSameTrees(const test::ShapeSpec& s, const Params& p, const std::string& policy,
                    const TreeConstraints& constraints = {},
                    const std::vector<uint8_t>& is_cat = {}) {
  const test::BinnedData b = test::MakeBinnedData(s, is_cat);
  auto comm = rabit::MakeLocalCommunicator();
  const TreeParams tp = TreeParams::From(p, 0.0f);
  TreeGrower cpu(b.matrix.get(), &b.cuts, tp, comm.get(), 2);
  cpu.SetConstraints(constraints);
  const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
  DeviceTreeGrower dev(&dm, &b.cuts, tp, comm.get());
  dev.SetConstraints(constraints);
  std::vector<float> preds(b.matrix->NumRows(), 0.5f);
  DeviceBuffer<float> d_preds(preds);
  int cat_splits = 0;
  for (uint64_t key = 0; key < 3; ++key) {
    const RegTree expected = cpu.Grow(b.gpair, b.quantizer, key);
    const RegTree got = dev.Grow(b.gpair, b.quantizer, key);
    ExpectSameTree(got, expected, std::string(s.name) + " " + policy);
    cpu.UpdatePredictions(expected, &preds, 1, 0);
    dev.UpdatePredictions(got, d_preds.data(), 1, 0);
    for (const TreeNode& n : expected.nodes()) cat_splits += !n.IsLeaf() && n.is_cat;
  }
  EXPECT_EQ(d_preds.ToHost(), preds) << s.name << " " << policy;
  return cat_splits;
}
#endif

TEST(DeviceGrower, SameTreesAsTreeGrower) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::ShapeSpec& s : test::KernelShapes()) {
    Params p;
    p.max_depth = 5;
    p.colsample_bynode = 0.8;
    ExpectSameTrees(s, p, "depthwise");
    p.grow_policy = "lossguide";
    p.max_depth = 0;
    p.max_leaves = 12;
    ExpectSameTrees(s, p, "lossguide");
  }
#endif
}

// Monotone constraints (increasing, decreasing, free in turn) and interaction constraints (the
// features in sets of three, the last features in none), depthwise and lossguide.
TEST(DeviceGrower, SameTreesAsTreeGrowerUnderConstraints) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::ShapeSpec& s : test::KernelShapes()) {
    TreeConstraints monotone, interaction;
    for (uint32_t f = 0; f < s.features; ++f) {
      monotone.monotone.push_back(static_cast<int8_t>(f % 3 == 0 ? 1 : (f % 3 == 1 ? -1 : 0)));
    }
    for (uint32_t f = 0; f + 3 < s.features; f += 3)
      interaction.interaction.push_back({f, f + 1, f + 2});
    if (interaction.interaction.empty()) interaction.interaction.push_back({0});
    TreeConstraints both = monotone;
    both.interaction = interaction.interaction;
    Params p;
    p.max_depth = 5;
    p.colsample_bynode = 0.8;
    ExpectSameTrees(s, p, "depthwise monotone", monotone);
    ExpectSameTrees(s, p, "depthwise interaction", interaction);
    p.grow_policy = "lossguide";
    p.max_depth = 0;
    p.max_leaves = 12;
    ExpectSameTrees(s, p, "lossguide monotone", monotone);
    ExpectSameTrees(s, p, "lossguide both", both);
  }
#endif
}

// Categorical features (one-hot and partition splits, dense and with missing values), depthwise and
// lossguide, with column sampling, and with monotone and interaction constraints on the
// numerical features: the same trees, categories included, and the same prediction cache.
TEST(DeviceGrower, SameTreesAsTreeGrowerCategorical) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::CategoricalShape& c : test::CategoricalShapes()) {
    int cat_splits = 0;
    Params p;
    p.max_depth = 5;
    p.colsample_bynode = 0.8;
    cat_splits += ExpectSameTrees(c.shape, p, "depthwise", {}, c.is_cat);
    TreeConstraints constraints;
    for (uint32_t f = 0; f < c.shape.features; ++f) {
      constraints.monotone.push_back(static_cast<int8_t>(c.is_cat[f] ? 0 : (f % 2 ? -1 : 1)));
    }
    constraints.interaction.push_back({0, 1, 2});
    p.max_cat_to_onehot = 8;  // the 3-category shapes stay one-hot, the others partition
    p.max_cat_threshold = 8;
    cat_splits += ExpectSameTrees(c.shape, p, "depthwise constrained", constraints, c.is_cat);
    p.grow_policy = "lossguide";
    p.max_depth = 0;
    p.max_leaves = 12;
    p.colsample_bynode = 1.0;
    cat_splits += ExpectSameTrees(c.shape, p, "lossguide", {}, c.is_cat);
    EXPECT_GT(cat_splits, 0) << c.shape.name;  // the trees split on categories somewhere
  }
#endif
}

}  // namespace
}  // namespace ringboost
