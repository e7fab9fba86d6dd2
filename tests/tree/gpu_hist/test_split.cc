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

  // Adds monotone constraints: features increasing, decreasing and free in turn; the root
  // unbounded, node 1 under a ceiling and node 2 in a box, as ChildBounds leaves them, each node's
  // gain that of its clamped weight (NodeBook's).
  void Bound(const test::BinnedData& b, const SplitParams& params) {
    for (uint32_t f = 0; f < b.cuts.NumFeatures(); ++f) {
      monotone.push_back(static_cast<int8_t>(f % 3 == 0 ? 1 : (f % 3 == 1 ? -1 : 0)));
    }
    nodes[1].bounds.upper = 0.01f;
    nodes[2].bounds.lower = -0.02f;
    nodes[2].bounds.upper = 0.05f;
    for (NodeToEvaluate& n : nodes) {
      const double g = b.quantizer.Grad(n.sum.g), h = b.quantizer.Hess(n.sum.h);
      n.gain = BoundedGainGivenWeight(params, g, h, n.bounds.Clamp(CalcWeight(params, g, h)));
    }
  }
  // The monotone constraints, or null before Bound.
  const std::vector<int8_t>* Monotone() const { return monotone.empty() ? nullptr : &monotone; }

  std::vector<int8_t> monotone;
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

// The kernel's scan run on the host (with monotone constraints where not null).
std::vector<SplitCandidate> ReferenceSplits(const test::BinnedData& b, const SplitParams& params,
                                            const std::vector<NodeToEvaluate>& nodes,
                                            const std::vector<int8_t>* monotone = nullptr) {
  const SplitScanContext ctx = HostScanContext(b.cuts, params, b.quantizer, monotone);
  std::vector<std::vector<uint32_t>> features;
  for (const NodeToEvaluate& n : nodes) features.push_back(*n.features);
  const std::vector<SplitWork> work = MakeSplitWork(features);
  std::vector<DeviceSplitResult> results;
  for (const SplitWork& w : work) {
    const NodeToEvaluate& n = nodes[w.node];
    const DeviceSplitNode dn{0, n.sum.g, n.sum.h, n.gain, n.bounds};
    results.push_back(EvaluateFeatureReference(ctx, dn, n.hist->data(), w.feature));
  }
  return ReduceSplits(work, results, nodes.size());
}

// What CompareHostScan saw: candidates found, won by a backward scan, and changed by the
// constraints (against the same nodes' free answer).
struct HostScanCounts {
  int found = 0, default_left = 0, changed = 0;
};

// The kernel's scan run on the host equals SplitEvaluator's answer over the shapes and parameter
// variants, with the nodes bounded by SplitNodes::Bound where `monotone`.
HostScanCounts CompareHostScan(bool monotone) {
  HostScanCounts counts;
  for (const test::ShapeSpec& s : test::KernelShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    for (const SplitParams& params : ParamVariants()) {
      SplitNodes sn(b, params);
      if (monotone) sn.Bound(b, params);
      SplitEvaluator cpu(&b.cuts, params, &b.quantizer);
      const std::vector<SplitCandidate> free = cpu.Evaluate(sn.nodes, 2);
      cpu.SetMonotone(sn.Monotone());
      const std::vector<SplitCandidate> expected = cpu.Evaluate(sn.nodes, 2);
      const std::vector<SplitCandidate> got = ReferenceSplits(b, params, sn.nodes, sn.Monotone());
      EXPECT_EQ(got.size(), expected.size());
      for (std::size_t k = 0; k < got.size() && k < expected.size(); ++k) {
        ExpectSameSplit(got[k], expected[k],
                        std::string(s.name) + " node " + std::to_string(k) + " mcw " +
                            std::to_string(params.min_child_weight));
        counts.found += got[k].found;
        counts.default_left += got[k].found && got[k].default_left;
        counts.changed += got[k].found != free[k].found || got[k].loss_chg != free[k].loss_chg ||
                          got[k].feature != free[k].feature;
      }
    }
  }
  return counts;
}

TEST(DeviceSplit, HostScanEqualsSplitEvaluatorOverShapes) {
  const HostScanCounts counts = CompareHostScan(false);
  EXPECT_GT(counts.found, 30);        // the comparison is not between empty answers
  EXPECT_GT(counts.default_left, 0);  // and backward scans win somewhere
}

// Under monotone constraints the scan weighs candidates by BoundedLossChange (split_math.h) as
// SplitEvaluator does with SetMonotone, and the constraints change the answer somewhere (so the
// test compares the bounded arithmetic, not the free one).
TEST(DeviceSplit, HostScanEqualsSplitEvaluatorUnderMonotoneConstraints) {
  const HostScanCounts counts = CompareHostScan(true);
  EXPECT_GT(counts.found, 30);
  EXPECT_GT(counts.default_left, 0);
  EXPECT_GT(counts.changed, 10);
}

// A split whose clamped weights break the feature's order is no candidate: one feature, left
// weight -1/2 and right weight +1/2 (units of 1, lambda 1), allowed increasing, refused
// decreasing; in a box [0, 0.25] both weights clamp to 0 and 0.25, the gain -(2 g w + (h + 1) w^2)
// of each side in float.
TEST(DeviceSplit, MonotoneScanRejectsAndClampsByHand) {
  HistogramCuts cuts;
  cuts.ptr = {0, 2};
  cuts.values = {1.0f, 2.0f};
  cuts.min_values = {0.0f};
  const Histogram hist{{1, 1}, {-1, 1}};
  const GradientQuantizer q;
  SplitParams params;
  params.min_child_weight = 0.0f;
  const DeviceSplitNode free{0, 0, 2, 0.0f, WeightBounds{}};
  for (const int8_t c : {1, -1}) {
    const std::vector<int8_t> monotone{c};
    const SplitScanContext ctx = HostScanContext(cuts, params, q, &monotone);
    const DeviceSplitResult r = EvaluateFeatureReference(ctx, free, hist.data(), 0);
    EXPECT_EQ(r.found, c > 0);
    if (r.found) EXPECT_EQ(r.loss_chg, 0.5f + 0.5f);  // -(2 * 1 * -0.5 + 2 * 0.25), twice
  }
  const std::vector<int8_t> up{1};
  const SplitScanContext ctx = HostScanContext(cuts, params, q, &up);
  const DeviceSplitNode boxed{0, 0, 2, 0.0f, WeightBounds{0.0f, 0.25f}};
  const DeviceSplitResult r = EvaluateFeatureReference(ctx, boxed, hist.data(), 0);
  ASSERT_TRUE(r.found);
  // Left clamps to 0 (gain 0); right 0.25: -(2 * -1 * 0.25 + 2 * 0.0625) = 0.375.
  EXPECT_EQ(r.loss_chg, 0.375f);
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

#ifdef RINGBOOST_USE_CUDA
// The kernel's answers equal SplitEvaluator's over every shape and parameter variant, with the
// nodes bounded by SplitNodes::Bound where `monotone`.
void ExpectKernelEqualsSplitEvaluator(bool monotone) {
  for (const test::ShapeSpec& s : test::AllKernelShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    for (const SplitParams& params : ParamVariants()) {
      SplitNodes sn(b, params);
      if (monotone) sn.Bound(b, params);
      SplitEvaluator cpu(&b.cuts, params, &b.quantizer);
      cpu.SetMonotone(sn.Monotone());
      const std::vector<SplitCandidate> expected = cpu.Evaluate(sn.nodes, 2);
      const std::vector<SplitCandidate> got =
          EvaluateSplitsOnDevice(dm, b.cuts, params, b.quantizer, sn.nodes, sn.Monotone());
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        ExpectSameSplit(got[k], expected[k], std::string(s.name) + " node " + std::to_string(k));
      }
    }
  }
}
#endif

TEST(DeviceSplit, KernelEqualsSplitEvaluatorOverShapes) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  ExpectKernelEqualsSplitEvaluator(false);
#endif
}

TEST(DeviceSplit, KernelEqualsSplitEvaluatorUnderMonotoneConstraints) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  ExpectKernelEqualsSplitEvaluator(true);
#endif
}

// What DeviceTreeGrower::EvaluateNodes does with categorical features: the numerical ones scanned
// (the kernel's host reference, or with `dm` the kernel), the categorical ones evaluated by
// CategoricalSplitter from their bins gathered out of the histograms (with `dm`: by
// DeviceBinGather from device memory), the two merged by MergeCategoricalSplits; under
// `monotone` constraints where not null.
std::vector<SplitCandidate> MixedSplits(const test::BinnedData& b, const SplitParams& params,
                                        const std::vector<NodeToEvaluate>& nodes,
                                        const DeviceMatrix* dm = nullptr,
                                        const std::vector<int8_t>* monotone = nullptr) {
  std::vector<std::vector<uint32_t>> numeric(nodes.size()), categorical(nodes.size());
  std::vector<DeviceSplitNode> d_nodes;
  std::vector<GradientSum> all_hists;
  std::vector<uint64_t> offsets;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (uint32_t f : *nodes[i].features) {
      (b.cuts.IsCat(f) ? categorical : numeric)[i].push_back(f);
    }
    offsets.push_back(all_hists.size());
    d_nodes.push_back(DeviceSplitNode{offsets[i], nodes[i].sum.g, nodes[i].sum.h, nodes[i].gain,
                                      nodes[i].bounds});
    all_hists.insert(all_hists.end(), nodes[i].hist->begin(), nodes[i].hist->end());
  }
  const CategoricalBins layout = CategoricalBinsOf(b.cuts);
  std::vector<SplitCandidate> best;
  std::vector<GradientSum> gathered;
  if (dm == nullptr) {
    std::vector<NodeToEvaluate> numeric_nodes = nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i) numeric_nodes[i].features = &numeric[i];
    best = ReferenceSplits(b, params, numeric_nodes, monotone);
    for (uint64_t offset : offsets) {
      for (uint32_t bin : layout.bins) gathered.push_back(all_hists[offset + bin]);
    }
  } else {
#ifdef RINGBOOST_USE_CUDA
    const DeviceBuffer<GradientSum> d_hists(all_hists);
    DeviceSplitEvaluator evaluator(dm, params, b.quantizer);
    evaluator.SetMonotone(monotone);
    best = evaluator.Evaluate(d_hists.data(), d_nodes, numeric);
    DeviceBinGather gather(layout.bins);
    gathered = gather.Gather(d_hists.data(), offsets);
#endif
  }
  CategoricalSplitter splitter(&b.cuts, params, &b.quantizer);
  splitter.SetMonotone(monotone);
  MergeCategoricalSplits(b.cuts, splitter, layout, gathered, d_nodes, categorical, &best);
  return best;
}

std::vector<SplitParams> CategoricalParamVariants() {
  std::vector<SplitParams> v = ParamVariants();
  SplitParams onehot_many, narrow;
  onehot_many.max_cat_to_onehot = 64;  // one-hot for up to 63 categories
  narrow.max_cat_threshold = 2;        // partitions of at most 2 categories a side
  v.push_back(onehot_many);
  v.push_back(narrow);
  return v;
}

// The categorical merge equals SplitEvaluator over the categorical shapes and parameter variants:
// the categorical candidates bit for bit (categories included), and the winner among numerical
// and categorical ones by the CPU's order, free and under SplitNodes::Bound's constraints and boxes
// (the categorical candidates weighed in their node's box too). With `dm`, the kernels (scan and
// gather) do their part.
void ExpectCategoricalMergeEqualsSplitEvaluator(bool on_device) {
  int cat_wins = 0, num_wins = 0, bounded_cat_wins = 0;
  for (const test::CategoricalShape& c : test::CategoricalShapes()) {
    const test::BinnedData b = test::MakeBinnedData(c.shape, c.is_cat);
    const auto compare = [&](const DeviceMatrix* d) {
      for (const SplitParams& params : CategoricalParamVariants()) {
        for (const bool bounded : {false, true}) {
          SplitNodes sn(b, params);
          if (bounded) sn.Bound(b, params);
          SplitEvaluator cpu(&b.cuts, params, &b.quantizer);
          cpu.SetMonotone(sn.Monotone());
          const std::vector<SplitCandidate> expected = cpu.Evaluate(sn.nodes, 2);
          const std::vector<SplitCandidate> got =
              MixedSplits(b, params, sn.nodes, d, sn.Monotone());
          ASSERT_EQ(got.size(), expected.size());
          for (std::size_t k = 0; k < got.size(); ++k) {
            const std::string where = std::string(c.shape.name) + " node " + std::to_string(k) +
                                      " onehot " + std::to_string(params.max_cat_to_onehot) +
                                      (bounded ? " bounded" : "");
            ExpectSameSplit(got[k], expected[k], where);
            EXPECT_EQ(got[k].is_cat, expected[k].is_cat) << where;
            EXPECT_EQ(got[k].categories, expected[k].categories) << where;
            cat_wins += got[k].found && got[k].is_cat;
            num_wins += got[k].found && !got[k].is_cat;
            bounded_cat_wins += bounded && got[k].found && got[k].is_cat;
          }
        }
      }
    };
#ifdef RINGBOOST_USE_CUDA
    if (on_device) {
      const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
      compare(&dm);
      continue;
    }
#endif
    compare(nullptr);
  }
  EXPECT_GT(cat_wins, 10);  // both kinds of split win somewhere
  EXPECT_GT(num_wins, 10);
  EXPECT_GT(bounded_cat_wins, 5);
}

TEST(DeviceSplit, CategoricalHostMergeEqualsSplitEvaluator) {
  ExpectCategoricalMergeEqualsSplitEvaluator(false);
}

TEST(DeviceSplit, CategoricalKernelsAndMergeEqualSplitEvaluator) {
  RB_REQUIRE_DEVICE();
  ExpectCategoricalMergeEqualsSplitEvaluator(true);
}

// Two features of equal loss change, one numerical and one categorical: the lower feature wins
// whichever kind it is, as SplitCandidate::Update orders them.
TEST(DeviceSplit, CategoricalTiesKeepLowerFeature) {
  for (const bool cat_first : {true, false}) {
    HistogramCuts cuts;
    cuts.ptr = {0, 2, 4};
    // A categorical feature's cuts are code + 1; a numerical one's plain values.
    cuts.values = {1.0f, 2.0f, 1.0f, 2.0f};
    cuts.min_values = {0.0f, 0.0f};
    cuts.is_cat = {static_cast<uint8_t>(cat_first), static_cast<uint8_t>(!cat_first)};
    // Bin 0 against bin 1 is the one split of either feature: loss change 16/5 + 16/5 - 0.
    const Histogram hist{{-4, 4}, {4, 4}, {-4, 4}, {4, 4}};
    const std::vector<uint32_t> features{0, 1};
    const NodeToEvaluate node{&hist, GradientSum{0, 8}, 0.0f, &features};
    const GradientQuantizer q;  // units of 1
    SplitParams params;
    const SplitEvaluator cpu(&cuts, params, &q);
    const SplitCandidate expected = cpu.Evaluate({node}, 1)[0];
    ASSERT_TRUE(expected.found);
    EXPECT_EQ(expected.feature, 0u);
    EXPECT_EQ(expected.is_cat, cat_first);
    test::BinnedData b;
    b.cuts = cuts;
    b.quantizer = q;
    const std::vector<SplitCandidate> got = MixedSplits(b, params, {node});
    ExpectSameSplit(got[0], expected, cat_first ? "categorical first" : "numerical first");
    EXPECT_EQ(got[0].is_cat, cat_first);
  }
}

}  // namespace
}  // namespace ringboost
