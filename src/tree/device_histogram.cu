// Device side of the histograms (device_histogram.h): the accumulation kernels and their launch.
//
// Why 64-bit shared atomics rather than 32-bit partial sums with a carry: a quantized gradient
// may be as large as 2^62 / rows (gradient.h), so no useful bound keeps a block's partial sum in
// 32 bits; 64-bit integer atomicAdd on shared memory is exact, order-independent, and supported
// on every architecture we build for.
#include <algorithm>

#include "tree/device_common.cuh"
#include "tree/device_histogram.h"

namespace ringboost {
namespace {

// One block: the rows of `task` and the bins of `group`. kShared: sums in shared memory, flushed
// to global once; otherwise straight into global memory.
template <bool kShared>
__global__ void HistogramKernel(EllpackView matrix, const GradientSum* gpair, const uint32_t* rows,
                                const HistBlockTask* tasks, const FeatureGroup* groups,
                                uint32_t total_bins, GradientSum* out) {
  extern __shared__ unsigned long long smem[];  // (g, h) per bin of the group
  const HistBlockTask task = tasks[blockIdx.x];
  const FeatureGroup group = groups[blockIdx.y];
  const uint32_t n_bins = group.bin_end - group.bin_begin;
  GradientSum* node_hist = out + static_cast<uint64_t>(task.node) * total_bins;
  if (kShared) {
    for (uint32_t i = threadIdx.x; i < 2 * n_bins; i += blockDim.x) smem[i] = 0;
    __syncthreads();
  }
  const uint32_t width = group.slot_end - group.slot_begin;
  const uint64_t n = (task.row_end - task.row_begin) * width;
  for (uint64_t idx = threadIdx.x; idx < n; idx += blockDim.x) {
    const uint32_t row = rows[task.row_begin + idx / width];
    const uint32_t bin = matrix.Symbol(row, group.slot_begin + static_cast<uint32_t>(idx % width));
    if (bin < group.bin_begin || bin >= group.bin_end) continue;  // other group, or null
    const GradientSum g = gpair[row];
    if (kShared) {
      const uint32_t local = bin - group.bin_begin;
      atomicAdd(&smem[2 * local], static_cast<unsigned long long>(g.g));
      atomicAdd(&smem[2 * local + 1], static_cast<unsigned long long>(g.h));
    } else {
      AtomicAddSum(node_hist + bin, g.g, g.h);
    }
  }
  if (kShared) {
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < n_bins; i += blockDim.x) {
      const int64_t g = static_cast<int64_t>(smem[2 * i]);
      const int64_t h = static_cast<int64_t>(smem[2 * i + 1]);
      if (g != 0 || h != 0) AtomicAddSum(node_hist + group.bin_begin + i, g, h);
    }
  }
}

__global__ void SubtractKernel(const GradientSum* parent, const GradientSum* child,
                               GradientSum* dst, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    dst[i].g = parent[i].g - child[i].g;
    dst[i].h = parent[i].h - child[i].h;
  }
}

// Shared memory one block may use: the opt-in limit of the current device, capped by the policy.
std::size_t SharedBudget() {
  int device = 0, optin = 0;
  RB_CUDA_CHECK(cudaGetDevice(&device));
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return std::max(DevicePolicy::kHistSharedBytes,
                  std::min<std::size_t>(DevicePolicy::kHistSharedOptinBytes, optin));
}

}  // namespace

DeviceHistogramBuilder::DeviceHistogramBuilder(const DeviceMatrix* matrix,
                                               const HistogramCuts& cuts, uint32_t max_group_bins)
    : matrix_(matrix), total_bins_(cuts.TotalBins()) {
  const std::size_t budget = SharedBudget();
  const uint32_t fit = static_cast<uint32_t>(budget / (2 * sizeof(unsigned long long)));
  const uint32_t max_bins = max_group_bins == 0 ? fit : std::min(fit, max_group_bins);
  groups_ = GroupFeatures(cuts, max_bins, DevicePolicy::kHistMaxSharedGroups,
                          matrix->column_of_host(), matrix->shape().row_stride);
  std::vector<FeatureGroup> h_shared, h_global;
  uint32_t widest = 0;
  for (const FeatureGroup& g : groups_) {
    (g.shared ? h_shared : h_global).push_back(g);
    if (g.shared) widest = std::max(widest, g.bin_end - g.bin_begin);
  }
  d_shared_groups_.CopyFrom(h_shared);
  d_global_groups_.CopyFrom(h_global);
  shared_bytes_ = static_cast<std::size_t>(widest) * 2 * sizeof(unsigned long long);
  if (shared_bytes_ > DevicePolicy::kHistSharedBytes) {
    RB_CUDA_CHECK(cudaFuncSetAttribute(HistogramKernel<true>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(shared_bytes_)));
  }
}

void DeviceHistogramBuilder::Build(const GradientSum* d_gpair, const uint32_t* d_rows,
                                   const std::vector<RowSegment>& segments, GradientSum* d_out) {
  if (segments.empty()) return;
  RB_CUDA_CHECK(cudaMemset(d_out, 0, segments.size() * total_bins_ * sizeof(GradientSum)));
  const std::vector<HistBlockTask> tasks =
      MakeHistBlockTasks(segments, DevicePolicy::kHistRowsPerBlock);
  if (tasks.empty()) return;  // every node empty: all zero
  d_tasks_.CopyFrom(tasks);
  constexpr int kThreads = DevicePolicy::kHistBlockThreads;
  const EllpackView view = matrix_->View();
  const unsigned int n_tasks = static_cast<unsigned int>(tasks.size());
  if (!d_shared_groups_.empty()) {
    const dim3 grid(n_tasks, static_cast<unsigned int>(d_shared_groups_.size()));
    HistogramKernel<true><<<grid, kThreads, shared_bytes_>>>(
        view, d_gpair, d_rows, d_tasks_.data(), d_shared_groups_.data(), total_bins_, d_out);
    RB_CUDA_CHECK_LAUNCH();
  }
  if (!d_global_groups_.empty()) {
    const dim3 grid(n_tasks, static_cast<unsigned int>(d_global_groups_.size()));
    HistogramKernel<false><<<grid, kThreads>>>(view, d_gpair, d_rows, d_tasks_.data(),
                                               d_global_groups_.data(), total_bins_, d_out);
    RB_CUDA_CHECK_LAUNCH();
  }
}

void DeviceHistogramBuilder::Subtract(const GradientSum* d_parent, const GradientSum* d_child,
                                      GradientSum* d_dst, std::size_t n) {
  if (n == 0) return;
  constexpr int kThreads = DevicePolicy::kElementwiseBlockThreads;
  const unsigned int grid = std::min<unsigned int>(GridFor(n, kThreads), 65535u);
  SubtractKernel<<<grid, kThreads>>>(d_parent, d_child, d_dst, n);
  RB_CUDA_CHECK_LAUNCH();
}

std::vector<Histogram> BuildHistogramsOnDevice(const DeviceMatrix& matrix,
                                               const HistogramCuts& cuts,
                                               const std::vector<GradientSum>& gpair,
                                               const std::vector<std::vector<uint32_t>>& node_rows,
                                               uint32_t max_group_bins) {
  std::vector<uint32_t> h_rows;
  std::vector<RowSegment> segments;
  for (const auto& rows : node_rows) {
    segments.push_back(RowSegment{h_rows.size(), rows.size()});
    h_rows.insert(h_rows.end(), rows.begin(), rows.end());
  }
  DeviceBuffer<GradientSum> d_gpair(gpair);
  DeviceBuffer<uint32_t> d_rows(h_rows);
  DeviceBuffer<GradientSum> d_out(node_rows.size() * cuts.TotalBins());
  DeviceHistogramBuilder builder(&matrix, cuts, max_group_bins);
  builder.Build(d_gpair.data(), d_rows.data(), segments, d_out.data());
  const std::vector<GradientSum> all = d_out.ToHost();
  std::vector<Histogram> out(node_rows.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    out[k].assign(all.begin() + k * cuts.TotalBins(), all.begin() + (k + 1) * cuts.TotalBins());
  }
  return out;
}

}  // namespace ringboost
