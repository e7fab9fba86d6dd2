// Device side of split evaluation (split.h): one block scans one (node, feature).
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "tree/gpu_hist/common.cuh"
#include "tree/gpu_hist/split.h"

namespace ringboost {
namespace {

struct SumPair {
  int64_t g, h;
};
struct SumPairAdd {
  __device__ SumPair operator()(const SumPair& a, const SumPair& b) const {
    return SumPair{a.g + b.g, a.h + b.h};
  }
};
struct CombineOp {
  __device__ DeviceSplitResult operator()(const DeviceSplitResult& a,
                                          const DeviceSplitResult& b) const {
    return CombineSplits(a, b);
  }
};

constexpr int kThreads = DevicePolicy::kSplitBlockThreads;

// Sum of the feature's bins over the block, returned to every thread.
template <typename Reduce>
__device__ SumPair FeatureTotal(const GradientSum* hist, uint32_t n_bins,
                                typename Reduce::TempStorage* temp, SumPair* broadcast) {
  SumPair local{0, 0};
  for (uint32_t b = threadIdx.x; b < n_bins; b += kThreads) {
    local.g += hist[b].g;
    local.h += hist[b].h;
  }
  const SumPair total = Reduce(*temp).Reduce(local, SumPairAdd());
  if (threadIdx.x == 0) *broadcast = total;
  __syncthreads();
  return *broadcast;
}

__global__ void EvaluateSplitsKernel(SplitScanContext ctx, const DeviceSplitNode* nodes,
                                     const SplitWork* work, const GradientSum* hist,
                                     DeviceSplitResult* out) {
  using Scan = cub::BlockScan<SumPair, kThreads>;
  using ReduceSum = cub::BlockReduce<SumPair, kThreads>;
  using ReduceBest = cub::BlockReduce<DeviceSplitResult, kThreads>;
  __shared__ union {
    typename Scan::TempStorage scan;
    typename ReduceSum::TempStorage sum;
    typename ReduceBest::TempStorage best;
  } temp;
  __shared__ SumPair present_shared;

  const SplitWork w = work[blockIdx.x];
  const DeviceSplitNode node = nodes[w.node];
  const uint32_t begin = ctx.feature_ptr[w.feature];
  const uint32_t n_bins = ctx.feature_ptr[w.feature + 1] - begin;
  const GradientSum* h = hist + node.hist_offset + begin;
  const SumPair present = FeatureTotal<ReduceSum>(h, n_bins, &temp.sum, &present_shared);
  const bool backward = present.g != node.sum_g || present.h != node.sum_h;

  DeviceSplitResult best = DeviceSplitResult::None();
  SumPair carry{0, 0};  // sum of the bins of earlier tiles
  for (uint32_t tile = 0; tile < n_bins; tile += kThreads) {
    const uint32_t k = tile + threadIdx.x;
    const SumPair v = k < n_bins ? SumPair{h[k].g, h[k].h} : SumPair{0, 0};
    SumPair incl, aggregate;
    __syncthreads();  // temp is reused by every tile
    Scan(temp.scan).InclusiveScan(v, incl, SumPairAdd(), aggregate);
    incl.g += carry.g;
    incl.h += carry.h;
    carry.g += aggregate.g;
    carry.h += aggregate.h;
    if (k >= n_bins || (v.g == 0 && v.h == 0)) continue;  // empty bins are no candidates
    best = CombineSplits(best,
                         ScanCandidate(ctx, node, w.feature, begin + k, incl.g, incl.h, true, k));
    if (backward) {
      const int64_t suffix_g = present.g - (incl.g - v.g), suffix_h = present.h - (incl.h - v.h);
      best = CombineSplits(best, ScanCandidate(ctx, node, w.feature, begin + k, suffix_g, suffix_h,
                                               false, 2 * n_bins - 1 - k));
    }
  }
  __syncthreads();
  const DeviceSplitResult result = ReduceBest(temp.best).Reduce(best, CombineOp());
  if (threadIdx.x == 0) out[blockIdx.x] = result;
}

// out[k] for k = i * width + j < n_nodes * width: bin bins[j] of the histogram at offsets[i].
// Each thread reads the histograms and writes its own entries of `out` only.
__global__ void GatherBinsKernel(const GradientSum* hist, const uint64_t* offsets, uint64_t n_nodes,
                                 const uint32_t* bins, uint64_t width, GradientSum* out) {
  const uint64_t total = n_nodes * width;
  for (uint64_t k = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    const uint64_t i = k / width, j = k - i * width;
    out[k] = hist[offsets[i] + bins[j]];
  }
}

constexpr int kGatherThreads = 256;

}  // namespace

DeviceBinGather::DeviceBinGather(const std::vector<uint32_t>& bins)
    : width_(bins.size()), d_bins_(bins) {}

std::vector<GradientSum> DeviceBinGather::Gather(const GradientSum* d_hist,
                                                 const std::vector<uint64_t>& offsets) {
  const uint64_t total = offsets.size() * width_;
  if (total == 0) return {};
  d_offsets_.CopyFrom(offsets);
  d_out_.Resize(total);
  GatherBinsKernel<<<GridStrideFor(total, kGatherThreads), kGatherThreads>>>(
      d_hist, d_offsets_.data(), offsets.size(), d_bins_.data(), width_, d_out_.data());
  RB_CUDA_CHECK_LAUNCH();
  return d_out_.ToHost();  // the copy waits for the kernel (default stream)
}

DeviceSplitEvaluator::DeviceSplitEvaluator(const DeviceMatrix* matrix, const SplitParams& params,
                                           const GradientQuantizer& quantizer) {
  ctx_.params = params;
  SetQuantizer(quantizer);
  ctx_.feature_ptr = matrix->d_feature_ptr();
  ctx_.cut_values = matrix->d_cut_values();
  ctx_.min_values = matrix->d_min_values();
}

void DeviceSplitEvaluator::SetQuantizer(const GradientQuantizer& quantizer) {
  ctx_.grad_unit = quantizer.Grad(1);
  ctx_.hess_unit = quantizer.Hess(1);
}

void DeviceSplitEvaluator::SetMonotone(const std::vector<int8_t>* monotone) {
  if (monotone == nullptr) {
    ctx_.monotone = nullptr;
    return;
  }
  d_monotone_.CopyFrom(*monotone);
  ctx_.monotone = d_monotone_.data();
}

std::vector<SplitCandidate> DeviceSplitEvaluator::Evaluate(
    const GradientSum* d_hist, const std::vector<DeviceSplitNode>& nodes,
    const std::vector<std::vector<uint32_t>>& features) {
  RB_CHECK(nodes.size() == features.size());
  const std::vector<SplitWork> work = MakeSplitWork(features);
  if (work.empty()) return std::vector<SplitCandidate>(nodes.size());
  d_nodes_.CopyFrom(nodes);
  d_work_.CopyFrom(work);
  d_results_.Resize(work.size());
  EvaluateSplitsKernel<<<static_cast<unsigned int>(work.size()), kThreads>>>(
      ctx_, d_nodes_.data(), d_work_.data(), d_hist, d_results_.data());
  RB_CUDA_CHECK_LAUNCH();
  return ReduceSplits(work, d_results_.ToHost(), nodes.size());
}

std::vector<SplitCandidate> EvaluateSplitsOnDevice(const DeviceMatrix& matrix,
                                                   const HistogramCuts& cuts,
                                                   const SplitParams& params,
                                                   const GradientQuantizer& quantizer,
                                                   const std::vector<NodeToEvaluate>& nodes,
                                                   const std::vector<int8_t>* monotone) {
  const std::size_t n_bins = cuts.TotalBins();
  std::vector<GradientSum> h_hist;
  std::vector<DeviceSplitNode> d_nodes;
  std::vector<std::vector<uint32_t>> features;
  for (const NodeToEvaluate& n : nodes) {
    RB_CHECK(n.hist->size() == n_bins);
    d_nodes.push_back(DeviceSplitNode{h_hist.size(), n.sum.g, n.sum.h, n.gain, n.bounds});
    h_hist.insert(h_hist.end(), n.hist->begin(), n.hist->end());
    features.push_back(*n.features);
  }
  DeviceBuffer<GradientSum> d_hist(h_hist);
  DeviceSplitEvaluator evaluator(&matrix, params, quantizer);
  evaluator.SetMonotone(monotone);
  return evaluator.Evaluate(d_hist.data(), d_nodes, features);
}

}  // namespace ringboost
