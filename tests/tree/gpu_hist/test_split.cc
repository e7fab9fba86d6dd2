// Device split evaluation against SplitEvaluator (the CPU reference): first the kernel's scan run
// sequentially on the host (EvaluateFeatureReference), then the kernel itself.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "device_test_helpers.h"
#include "tree/gpu_hist/split.h"
#include "tree/hist/histogram.h"
#include "tree/hist/row_partitioner.h"
#include "tree/hist/split_evaluator.h"

namespace ringboost {
namespace {

void ExpectSameSplit(const SplitCandidate& a, const SplitCandidate& b, const std::string& where) {
  EXPECT_EQ(a.found, b.found) << where;
  if (!a.found || !b.found) return;
  EXPECT_EQ(std::memcmp(&a.loss_chg, &b.loss_chg, sizeof(float)), 0)
      << where << ": " << a.loss_chg << " vs " << b.loss_chg;
  EXPECT_EQ(a.feature, b.feature) << where;
  EXPECT_EQ(a.split_bin, b.split_bin) << where;
  EXPECT_EQ(std::memcmp(&a.split_cond, &b.split_cond, sizeof(float)), 0) << where;
  EXPECT_EQ(a.default_left, b.default_left) << where;
  EXPECT_TRUE(a.left_sum == b.left_sum) << where;
  EXPECT_TRUE(a.right_sum == b.right_sum) << where;
}

// Nodes of one data set: the root and a two-way split of it, every feature (and for the last
// node every other feature), with their histograms.
struct SplitNodes {
  std::vector<Histogram> hists;
  std::vector<std::vector<uint32_t>> features;
  std::vector<NodeToEvaluate> nodes;

  SplitNodes(const test::BinnedData& b, const SplitParams& params) {
    RowPartitioner p(b.matrix->NumRows());
    p.Partition(
        {{0, 1, 2}}, [](std::size_t, uint32_t r) { return (r * 2654435761u) % 5 < 2; }, 2);
    const std::vector<int> nids{0, 1, 2};
    hists.resize(nids.size());
    std::vector<Histogram*> out;
    for (Histogram& h : hists) out.push_back(&h);
    HistogramBuilder(b.matrix.get(), &b.cuts, 2).Build(b.gpair, p, nids, out);
    std::vector<uint32_t> all(b.cuts.NumFeatures()), odd;
    std::iota(all.begin(), all.end(), 0u);
    for (uint32_t f = 1; f < b.cuts.NumFeatures(); f += 2) odd.push_back(f);
    features = {all, all, odd};
    for (std::size_t k = 0; k < nids.size(); ++k) {
      GradientSum sum;
      const uint32_t* rows = p.NodeRows(nids[k]);
      for (uint64_t i = 0; i < p.NodeRange(nids[k]).size(); ++i) sum += b.gpair[rows[i]];
      const float gain = CalcGain(params, b.quantizer.Grad(sum.g), b.quantizer.Hess(sum.h));
      nodes.push_back(NodeToEvaluate{&hists[k], sum, gain, &features[k]});
    }
  }
};

std::vector<SplitParams> ParamVariants() {
  std::vector<SplitParams> v(4);
  v[1].min_child_weight = 0.0f;  // empty sides allowed: only non-empty bins are candidates
  v[2].alpha = 0.5f;
  v[2].max_delta_step = 0.7f;
  v[3].lambda = 0.0f;
  v[3].min_child_weight = 3.0f;
  return v;
}

// The kernel's scan run on the host.
std::vector<SplitCandidate> ReferenceSplits(const test::BinnedData& b, const SplitParams& params,
                                            const std::vector<NodeToEvaluate>& nodes) {
  const SplitScanContext ctx = HostScanContext(b.cuts, params, b.quantizer);
  std::vector<std::vector<uint32_t>> features;
  for (const NodeToEvaluate& n : nodes) features.push_back(*n.features);
  const std::vector<SplitWork> work = MakeSplitWork(features);
  std::vector<DeviceSplitResult> results;
  for (const SplitWork& w : work) {
    const NodeToEvaluate& n = nodes[w.node];
    const DeviceSplitNode dn{0, n.sum.g, n.sum.h, n.gain};
    results.push_back(EvaluateFeatureReference(ctx, dn, n.hist->data(), w.feature));
  }
  return ReduceSplits(work, results, nodes.size());
}

TEST(DeviceSplit, HostScanEqualsSplitEvaluatorOverShapes) {
  int found = 0, default_left = 0;
  for (const test::ShapeSpec& s : test::KernelShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    for (const SplitParams& params : ParamVariants()) {
      const SplitNodes sn(b, params);
      const SplitEvaluator cpu(&b.cuts, params, &b.quantizer);
      const std::vector<SplitCandidate> expected = cpu.Evaluate(sn.nodes, 2);
      const std::vector<SplitCandidate> got = ReferenceSplits(b, params, sn.nodes);
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        ExpectSameSplit(got[k], expected[k],
                        std::string(s.name) + " node " + std::to_string(k) + " mcw " +
                            std::to_string(params.min_child_weight));
        found += got[k].found;
        default_left += got[k].found && got[k].default_left;
      }
    }
  }
  EXPECT_GT(found, 30);        // the comparison is not between empty answers
  EXPECT_GT(default_left, 0);  // and backward scans win somewhere
}

// Two identical features: the lower feature wins, as in SplitEvaluator; bin 0 is the only
// candidate with a positive loss change (bin 1 leaves the right side empty).
TEST(DeviceSplit, TiesKeepLowerFeatureAndFirstCandidate) {
  HistogramCuts cuts;
  cuts.ptr = {0, 2, 4};
  cuts.values = {1.0f, 2.0f, 1.0f, 2.0f};
  cuts.min_values = {0.0f, 0.0f};
  const Histogram hist{{-4, 4}, {4, 4}, {-4, 4}, {4, 4}};
  const std::vector<uint32_t> features{0, 1};
  const NodeToEvaluate node{&hist, GradientSum{0, 8}, 0.0f, &features};
  const GradientQuantizer q;  // units of 1
  SplitParams params;
  params.min_child_weight = 0.0f;
  const SplitScanContext ctx = HostScanContext(cuts, params, q);
  const DeviceSplitNode dn{0, 0, 8, 0.0f};
  const DeviceSplitResult f0 = EvaluateFeatureReference(ctx, dn, hist.data(), 0);
  EXPECT_TRUE(f0.found);
  EXPECT_FALSE(f0.default_left);
  EXPECT_EQ(f0.split_bin, 0);
  EXPECT_EQ(f0.order, 0u);
  const std::vector<SplitCandidate> got = ReduceSplits(
      MakeSplitWork({features}), {f0, EvaluateFeatureReference(ctx, dn, hist.data(), 1)}, 1);
  const SplitCandidate expected = SplitEvaluator(&cuts, params, &q).Evaluate({node}, 1)[0];
  EXPECT_EQ(expected.feature, 0u);
  ExpectSameSplit(got[0], expected, "tie");
  // 16/5 + 16/5 - 0, in float.
  EXPECT_EQ(got[0].loss_chg, static_cast<float>(16.0 / 5.0) + static_cast<float>(16.0 / 5.0));
}

TEST(DeviceSplit, CombineIsOrderFree) {
  DeviceSplitResult a = DeviceSplitResult::None(), b = a, c = a;
  a.found = b.found = c.found = true;
  a.loss_chg = 2.0f;
  a.order = 5;
  b.loss_chg = 2.0f;
  b.order = 3;
  c.loss_chg = 1.0f;
  c.order = 0;
  EXPECT_EQ(CombineSplits(a, b).order, 3u);
  EXPECT_EQ(CombineSplits(b, a).order, 3u);
  EXPECT_EQ(CombineSplits(CombineSplits(c, a), b).order, 3u);
  EXPECT_EQ(CombineSplits(c, DeviceSplitResult::None()).order, 0u);
  EXPECT_FALSE(CombineSplits(DeviceSplitResult::None(), DeviceSplitResult::None()).found);
}

TEST(DeviceSplit, KernelEqualsSplitEvaluatorOverShapes) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::ShapeSpec& s : test::AllKernelShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    for (const SplitParams& params : ParamVariants()) {
      const SplitNodes sn(b, params);
      const std::vector<SplitCandidate> expected =
          SplitEvaluator(&b.cuts, params, &b.quantizer).Evaluate(sn.nodes, 2);
      const std::vector<SplitCandidate> got =
          EvaluateSplitsOnDevice(dm, b.cuts, params, b.quantizer, sn.nodes);
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        ExpectSameSplit(got[k], expected[k], std::string(s.name) + " node " + std::to_string(k));
      }
    }
  }
#endif
}

}  // namespace
}  // namespace ringboost
