// RoundTrainer::Create, the one place a device is chosen: device=cpu gives the histogram method,
// whose rounds grow the grower's trees from the objective's gradients and keep the margins that
// prediction computes; a GPU device in a build without CUDA fails naming the fix.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "tree/gpu_hist/device_test_helpers.h"
#include "tree/hist/grower.h"
#include "tree/predict.h"
#include "tree/trainer.h"
#include "tree/tree_builders.h"

namespace ringboost {
namespace {

test::BinnedData LabelledData() {
  test::BinnedData b = test::MakeBinnedData({"dense", 400, 5, 40, 0.0, 32});
  for (std::size_t i = 0; i < b.data.label.size(); ++i) {
    b.data.label[i] = b.data.value[i * 5 + (i % 5)] > 0.0f ? 1.0f : 0.0f;
  }
  return b;
}

TEST(RoundTrainer, CpuRoundsGrowTheGrowersTreesAndKeepThePredictedMargins) {
  const test::BinnedData b = LabelledData();
  Params p;
  p.objective = "binary:logistic";
  p.max_depth = 3;
  auto comm = rabit::MakeLocalCommunicator();
  const std::unique_ptr<Objective> objective = Objective::Create(p);
  const float base = 0.25f;
  const TreeParams tp = TreeParams::From(p, 0.0f);
  std::unique_ptr<RoundTrainer> trainer =
      RoundTrainer::Create("cpu", TrainerSetup{*b.matrix, b.cuts, tp, comm.get(), 2, b.data, 1,
                                               std::vector<float>(b.data.NumRows(), base)});
  EXPECT_EQ(trainer->LastRoundSeconds(), -1.0);

  Model model;
  model.num_groups = 1;
  model.num_feature = 5;
  model.base_margin = base;
  for (int round = 0; round < 2; ++round) {
    // The reference: gradients of the margins so far, quantized, grown by TreeGrower.
    const std::vector<float> before = PredictMargin("cpu", model, b.data, 0, 2);
    std::vector<GradPair> g;
    objective->GetGradient(b.data, before, round, &g);
    GradientQuantizer q(g, 1, 0, comm.get());
    TreeGrower grower(b.matrix.get(), &b.cuts, tp, comm.get(), 2);
    const RegTree expected = grower.Grow(q.QuantizeAll(g, 1, 0, {}, 2), q, round);
    EXPECT_GT(expected.NumNodes(), 3);

    std::vector<RegTree> trees = trainer->BoostOneRound(*objective, b.data, round);
    ASSERT_EQ(trees.size(), 1u);
    test::ExpectSameTree(trees[0], expected, "round " + std::to_string(round));
    model.trees.push_back(trees[0]);
    model.tree_group.push_back(0);
    ++model.num_rounds;
    const std::vector<float> margins = trainer->Margins();
    const std::vector<float> predicted = PredictMargin("cpu", model, b.data, 0, 2);
    ASSERT_EQ(margins.size(), predicted.size());
    EXPECT_EQ(std::memcmp(margins.data(), predicted.data(), margins.size() * sizeof(float)), 0);
  }
  EXPECT_NE(trainer->PhaseReport().find("gradients"), std::string::npos);
}

TEST(RoundTrainer, GpuDeviceInABuildWithoutCudaNamesTheFix) {
#ifdef RINGBOOST_USE_CUDA
  GTEST_SKIP() << "built with CUDA: device=cuda is served";
#else
  EXPECT_NO_THROW(RoundTrainer::CheckDevice("cpu"));
  for (const std::string device : {"cuda", "cuda:1"}) {
    try {
      RoundTrainer::CheckDevice(device);
      ADD_FAILURE() << device << " was accepted";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("device=" + device), std::string::npos) << what;
      EXPECT_NE(what.find("-DRINGBOOST_USE_CUDA=ON"), std::string::npos) << what;
    }
  }
  const test::BinnedData b = LabelledData();
  Params p;
  auto comm = rabit::MakeLocalCommunicator();
  EXPECT_THROW(
      RoundTrainer::Create(
          "cuda", TrainerSetup{*b.matrix, b.cuts, TreeParams{}, comm.get(), 2, b.data, 1, {}}),
      Error);
  Model model;
  EXPECT_THROW(PredictMargin("cuda:0", model, b.data, 0, 2), Error);
#endif
}

}  // namespace
}  // namespace ringboost
