// Prediction for task=pred device=cuda: the kernel's row walk run on the host, and the kernel,
// against PredictMargin (the CPU reference), bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "common/error.h"
#include "model/model.h"
#include "tree/gpu_hist/device_test_helpers.h"
#include "tree/hist/grower.h"
#include "tree/predict_device.h"

namespace ringboost {
namespace {

// A model of 3 rounds x 2 groups grown on `b` (different gradients per tree), depth 4.
Model GrowModel(const test::BinnedData& b) {
  Params p;
  p.max_depth = 4;
  auto comm = rabit::MakeLocalCommunicator();
  Model m;
  m.num_groups = 2;
  m.num_feature = b.cuts.NumFeatures();
  m.base_margin = 0.25f;
  for (int round = 0; round < 3; ++round) {
    for (int group = 0; group < 2; ++group) {
      std::vector<GradPair> g = b.grads;
      for (std::size_t i = 0; i < g.size(); ++i) {
        g[i].grad *= (i % (2 + round + group) == 0) ? -1.0f : 1.0f;
        g[i].hess += 0.5f;
      }
      GradientQuantizer q(g, 1, 0, comm.get());
      TreeGrower grower(b.matrix.get(), &b.cuts, TreeParams::From(p, 0.0f), comm.get(), 2);
      m.trees.push_back(grower.Grow(q.QuantizeAll(g, 1, 0, {}, 2), q, round * 2 + group));
      m.tree_group.push_back(group);
    }
    ++m.num_rounds;
  }
  return m;
}

void ExpectSameBits(const std::vector<float>& a, const std::vector<float>& b, const char* name) {
  ASSERT_EQ(a.size(), b.size()) << name;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << name;
}

std::vector<test::ShapeSpec> PredictShapes() {
  return {{"dense", 800, 6, 50, 0.0, 32},
          {"sparse", 800, 8, 50, 0.5, 32},
          {"one_row", 1, 3, 5, 0.0, 16},
          {"all_missing", 40, 3, 5, 1.0, 16}};
}

TEST(DevicePredict, HostWalkEqualsPredictMargin) {
  for (const test::ShapeSpec& s : PredictShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const Model m = GrowModel(b);
    if (s.rows > 1 && s.missing < 1.0) EXPECT_GT(m.trees[0].NumNodes(), 7) << s.name;
    for (int rounds : {0, 1, 3}) {
      ExpectSameBits(PredictMarginReference(m, b.data, rounds), PredictMargin(m, b.data, rounds, 2),
                     s.name);
    }
  }
}

TEST(DevicePredict, RoundsOutOfRangeIsAnError) {
  const test::BinnedData b = test::MakeBinnedData(PredictShapes()[2]);
  const Model m = GrowModel(b);
  EXPECT_EQ(TreesForRounds(m, 0), 6u);
  EXPECT_EQ(TreesForRounds(m, 2), 4u);
  EXPECT_THROW(TreesForRounds(m, 4), Error);
  EXPECT_THROW(TreesForRounds(m, -1), Error);
}

TEST(DevicePredict, KernelEqualsPredictMargin) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::ShapeSpec& s : PredictShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const Model m = GrowModel(b);
    for (int rounds : {0, 2}) {
      ExpectSameBits(PredictMarginOnDevice(m, b.data, rounds), PredictMargin(m, b.data, rounds, 2),
                     s.name);
    }
  }
#endif
}

}  // namespace
}  // namespace ringboost
