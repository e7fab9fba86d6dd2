// Split evaluation on the device (DESIGN.md step 7, GPU): one block per (node, feature) scans the
// feature's bins with a block-wide prefix sum, forwards (missing values right) and, when the node
// has rows missing the feature, backwards (missing values left); one result per (node, feature),
// reduced per node in feature order as SplitEvaluator does.
//
// Equal to SplitEvaluator bit for bit: the candidates are the same (non-empty bins only), their
// sums the same integers, their loss changes the same floating-point steps (split_math.h, shared
// __host__ __device__ code, no FMA), and the winner the same: SplitEvaluator keeps the first
// candidate in scan order (forward ascending, then backward descending) whose loss change is the
// largest and > 0, which is what CombineSplits picks in any reduction order, since it orders
// candidates totally by (loss change descending, scan position ascending).
#pragma once

#include <cstdint>
#include <vector>

#include "tree/bins/quantile.h"
#include "tree/categorical_split.h"
#include "tree/gpu_hist/common.h"
#include "tree/gpu_hist/matrix.h"
#include "tree/gradient.h"
#include "tree/split_math.h"
#include "tree/split_types.h"

namespace ringboost {

// What the scan reads besides the histogram (a view: device pointers in kernels, host pointers in
// the reference).
struct SplitScanContext {
  SplitParams params;
  double grad_unit = 1.0;  // GradientQuantizer::Grad(1): value of one quantized unit
  double hess_unit = 1.0;
  const uint32_t* feature_ptr = nullptr;  // cuts.ptr
  const float* cut_values = nullptr;      // cuts.values
  const float* min_values = nullptr;      // cuts.min_values
  // Monotone constraints per feature (-1, 0, 1), or null for none: then every candidate is
  // weighed by BoundedLossChange in its node's box, as SplitEvaluator::SetMonotone asks.
  const int8_t* monotone = nullptr;
};

// A node to evaluate: its histogram starts at hist[hist_offset] (global bin 0).
struct DeviceSplitNode {
  uint64_t hist_offset;
  int64_t sum_g, sum_h;  // the node's total, missing values included
  float gain;            // its own gain (NodeBook's: CalcGain, or the bounded gain)
  WeightBounds bounds;   // monotone constraints: the box of its children's weights
};

// One block's work.
struct SplitWork {
  uint32_t node;
  uint32_t feature;
};

// The best candidate of one (node, feature); `order` is its position in the scan (forward bin k:
// k; backward bin k: 2 * bins - 1 - k), the tie-break. found == (loss_chg > 0).
struct DeviceSplitResult {
  float loss_chg;
  uint32_t order;
  int32_t split_bin;  // local: bin <= split_bin goes left
  float split_cond;
  int64_t left_g, left_h, right_g, right_h;
  bool default_left;
  bool found;

  RB_HOST_DEVICE static DeviceSplitResult None() {
    DeviceSplitResult r{};
    r.found = false;
    return r;
  }
};

// The better of two candidates: larger loss change, then earlier in the scan. Associative and
// commutative, so any reduction tree gives the sequential scan's winner.
RB_HOST_DEVICE inline DeviceSplitResult CombineSplits(const DeviceSplitResult& a,
                                                      const DeviceSplitResult& b) {
  if (!a.found) return b;
  if (!b.found) return a;
  if (a.loss_chg > b.loss_chg) return a;
  if (b.loss_chg > a.loss_chg) return b;
  return a.order <= b.order ? a : b;
}

// The candidate at global bin `bin` of `feature` where `acc_g, acc_h` is the running sum of the
// scan (forward: bins <= bin, the left side; backward: bins >= bin, the right side), as
// SplitEvaluator::Enumerate computes it.
RB_HOST_DEVICE inline DeviceSplitResult ScanCandidate(const SplitScanContext& ctx,
                                                      const DeviceSplitNode& node, uint32_t feature,
                                                      uint32_t bin, int64_t acc_g, int64_t acc_h,
                                                      bool forward, uint32_t order) {
  DeviceSplitResult c = DeviceSplitResult::None();
  const double mcw = ctx.params.min_child_weight;
  const int64_t rest_g = node.sum_g - acc_g, rest_h = node.sum_h - acc_h;
  if (static_cast<double>(acc_h) * ctx.hess_unit < mcw) return c;
  if (static_cast<double>(rest_h) * ctx.hess_unit < mcw) return c;
  c.left_g = forward ? acc_g : rest_g;
  c.left_h = forward ? acc_h : rest_h;
  c.right_g = forward ? rest_g : acc_g;
  c.right_h = forward ? rest_h : acc_h;
  const double gl = static_cast<double>(c.left_g) * ctx.grad_unit;
  const double hl = static_cast<double>(c.left_h) * ctx.hess_unit;
  const double gr = static_cast<double>(c.right_g) * ctx.grad_unit;
  const double hr = static_cast<double>(c.right_h) * ctx.hess_unit;
  c.loss_chg = ctx.monotone == nullptr ? SplitLossChange(ctx.params, gl, hl, gr, hr, node.gain)
                                       : BoundedLossChange(ctx.params, gl, hl, gr, hr, node.gain,
                                                           node.bounds, ctx.monotone[feature]);
  const uint32_t begin = ctx.feature_ptr[feature];
  c.split_bin = static_cast<int32_t>(forward ? bin - begin : bin - begin - 1);
  c.split_cond = c.split_bin < 0 ? ctx.min_values[feature] : ctx.cut_values[begin + c.split_bin];
  c.default_left = !forward;
  c.order = order;
  c.found = c.loss_chg > 0.0f;
  return c;
}

// CPU reference of the kernel: the same candidates and CombineSplits, in one sequential scan of
// the feature's bins of `hist` (host pointer to global bin 0 of the node).
DeviceSplitResult EvaluateFeatureReference(const SplitScanContext& ctx, const DeviceSplitNode& node,
                                           const GradientSum* hist, uint32_t feature);

// The (node, feature) pairs of `features` (per node, ascending), node by node.
std::vector<SplitWork> MakeSplitWork(const std::vector<std::vector<uint32_t>>& features);

// Per node, the best of its features' results in feature order (SplitCandidate::Update), as
// SplitEvaluator::Evaluate reduces them.
std::vector<SplitCandidate> ReduceSplits(const std::vector<SplitWork>& work,
                                         const std::vector<DeviceSplitResult>& results,
                                         std::size_t num_nodes);

// The scan context of these cuts and quantizer, pointing at the host cuts (and at `monotone`,
// per feature, when not null).
SplitScanContext HostScanContext(const HistogramCuts& cuts, const SplitParams& params,
                                 const GradientQuantizer& quantizer,
                                 const std::vector<int8_t>* monotone = nullptr);

// Categorical features are evaluated on the host by the CPU's own code (CategoricalSplitter,
// tree/categorical_split.h) from their bins of the device's histograms, which CategoricalBins
// lists: the global bins of every categorical feature, ascending, and where each feature's bins
// start in that list.
struct CategoricalBins {
  std::vector<uint32_t> bins;
  std::vector<int64_t> first;  // per feature: its first bin's position in `bins`; -1: numerical
  bool empty() const { return bins.empty(); }
};
CategoricalBins CategoricalBinsOf(const HistogramCuts& cuts);

// Per node i, the best of `best[i]` (the numerical features' best, as ReduceSplits gives it) and
// the splits CategoricalSplitter finds for the categorical features cat_features[i], whose bins lie
// at gathered[i * layout.bins.size() + layout.first[f]], in node i's sum, gain and box
// (nodes[i]; its hist_offset is not read): SplitCandidate::Update orders candidates by (loss
// change, then lower feature), so the order of the merge does not matter and the winner is
// SplitEvaluator's.
void MergeCategoricalSplits(const HistogramCuts& cuts, const CategoricalSplitter& splitter,
                            const CategoricalBins& layout, const std::vector<GradientSum>& gathered,
                            const std::vector<DeviceSplitNode>& nodes,
                            const std::vector<std::vector<uint32_t>>& cat_features,
                            std::vector<SplitCandidate>* best);

#ifdef RINGBOOST_USE_CUDA
// The bins `bins` (global, a fixed list) of histograms in device memory, brought to the host.
class DeviceBinGather {
 public:
  explicit DeviceBinGather(const std::vector<uint32_t>& bins);
  // out[i * bins.size() + j] = d_hist[offsets[i] + bins[j]].
  std::vector<GradientSum> Gather(const GradientSum* d_hist, const std::vector<uint64_t>& offsets);

 private:
  uint64_t width_;
  DeviceBuffer<uint32_t> d_bins_;
  DeviceBuffer<uint64_t> d_offsets_;
  DeviceBuffer<GradientSum> d_out_;
};

// Best split of each node from histograms in device memory (d_hist).
class DeviceSplitEvaluator {
 public:
  DeviceSplitEvaluator(const DeviceMatrix* matrix, const SplitParams& params,
                       const GradientQuantizer& quantizer);
  // The quantizer of the next tree's gradients.
  void SetQuantizer(const GradientQuantizer& quantizer);
  // Monotone constraints per feature (-1, 0, 1; uploaded here), or null for none.
  void SetMonotone(const std::vector<int8_t>* monotone);
  std::vector<SplitCandidate> Evaluate(const GradientSum* d_hist,
                                       const std::vector<DeviceSplitNode>& nodes,
                                       const std::vector<std::vector<uint32_t>>& features);

 private:
  SplitScanContext ctx_;  // device pointers
  DeviceBuffer<DeviceSplitNode> d_nodes_;
  DeviceBuffer<SplitWork> d_work_;
  DeviceBuffer<DeviceSplitResult> d_results_;
  DeviceBuffer<int8_t> d_monotone_;
};

// For tests: SplitEvaluator::Evaluate's answer computed on the device (histograms uploaded), with
// the nodes' boxes and, where not null, monotone constraints.
std::vector<SplitCandidate> EvaluateSplitsOnDevice(const DeviceMatrix& matrix,
                                                   const HistogramCuts& cuts,
                                                   const SplitParams& params,
                                                   const GradientQuantizer& quantizer,
                                                   const std::vector<NodeToEvaluate>& nodes,
                                                   const std::vector<int8_t>* monotone = nullptr);
#endif  // RINGBOOST_USE_CUDA

}  // namespace ringboost
