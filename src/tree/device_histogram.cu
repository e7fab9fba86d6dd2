// Device side of the histograms (device_histogram.h): the accumulation kernels and their launch.
#include <algorithm>

#include "tree/device_common.cuh"
#include "tree/device_histogram.h"

namespace ringboost {
namespace {

constexpr int kThreads = DevicePolicy::kHistBlockThreads;

// Exact add of v into the int64 held as words (lo, hi) of shared memory: the low words' carry
// goes into the high word. Both adds are modulo 2^32, so the pair ends as the sum modulo 2^64
// whatever the order of the adds of all threads.
__device__ __forceinline__ void SharedAdd64(uint32_t* lo, uint32_t* hi, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v);
  const uint32_t v_lo = static_cast<uint32_t>(u);
  const uint32_t old = atomicAdd(lo, v_lo);
  const uint32_t v_hi = static_cast<uint32_t>(u >> 32) + (old + v_lo < old ? 1u : 0u);
  if (v_hi != 0) atomicAdd(hi, v_hi);
}

// The shared sums of one group: four arrays of n_bins words (g low, g high, h low, h high), so
// that neighbouring bins fall in different banks.
struct SharedSums {
  uint32_t* words;
  uint32_t n_bins;
  __device__ void Add(uint32_t bin, const GradientSum& p) const {
    SharedAdd64(words + bin, words + n_bins + bin, p.g);
    SharedAdd64(words + 2 * n_bins + bin, words + 3 * n_bins + bin, p.h);
  }
  __device__ int64_t Get(uint32_t array, uint32_t bin) const {
    const uint64_t lo = words[2 * array * n_bins + bin];
    const uint64_t hi = words[(2 * array + 1) * n_bins + bin];
    return static_cast<int64_t>(hi << 32 | lo);
  }
  __device__ void Zero() const {
    for (uint32_t i = threadIdx.x; i < 4 * n_bins; i += blockDim.x) words[i] = 0;
  }
  // Adds the non-zero sums to `hist` (global memory, the group's first bin) and zeroes them.
  __device__ void FlushTo(GradientSum* hist) const {
    for (uint32_t i = threadIdx.x; i < n_bins; i += blockDim.x) {
      const int64_t g = Get(0, i), h = Get(1, i);
      if (g != 0 || h != 0) AtomicAddSum(hist + i, g, h);
    }
  }
};

// Calls add(row, bin) for every (row, slot) of the task's rows whose bin lies in the group. A
// thread walks the flattened (row, slot) positions idx, idx + blockDim, ... keeping the pair
// (r, s) by additions (no division in the loop).
template <typename Add>
__device__ void ForEachEntry(const EllpackView& m, const HistBlockTask& task,
                             const FeatureGroup& group, Add add) {
  const uint32_t width = group.slot_end - group.slot_begin;
  if (width == 0) return;
  const uint64_t n_rows = task.end - task.begin;
  const uint32_t step_r = blockDim.x / width, step_s = blockDim.x % width;
  uint64_t r = threadIdx.x / width;
  uint32_t s = threadIdx.x % width;
  const uint32_t n_bins = group.bin_end - group.bin_begin;
  while (r < n_rows) {
    const uint64_t pos = task.begin + r;
    const uint32_t row = task.rows != nullptr ? task.rows[pos] : static_cast<uint32_t>(pos);
    const uint32_t local = m.SlotBin(row, group.slot_begin + s) - group.bin_begin;
    if (local < n_bins) add(row, local);  // unsigned: bins below the group wrap past n_bins
    r += step_r;
    s += step_s;
    if (s >= width) {
      s -= width;
      ++r;
    }
  }
}

// Shared-memory groups: the block takes tasks [first, last) of its share, in order; the sums go
// to global memory whenever the output histogram changes and at the end.
__global__ void __launch_bounds__(kThreads, DevicePolicy::kHistBlocksPerSM)
    SharedHistogramKernel(EllpackView m, const GradientSum* gpair, const HistBlockTask* tasks,
                          uint64_t n_tasks, const FeatureGroup* groups, uint32_t total_bins,
                          GradientSum* out) {
  extern __shared__ uint32_t smem[];
  const FeatureGroup group = groups[blockIdx.y];
  const SharedSums sums{smem, group.bin_end - group.bin_begin};
  const uint64_t first = n_tasks * blockIdx.x / gridDim.x;
  const uint64_t last = n_tasks * (blockIdx.x + 1) / gridDim.x;
  if (first == last) return;
  uint32_t current = tasks[first].out;
  sums.Zero();
  __syncthreads();
  for (uint64_t t = first; t < last; ++t) {
    const HistBlockTask task = tasks[t];
    if (task.out != current) {  // the same for every thread of the block
      __syncthreads();
      sums.FlushTo(out + static_cast<uint64_t>(current) * total_bins + group.bin_begin);
      __syncthreads();
      sums.Zero();
      __syncthreads();
      current = task.out;
    }
    ForEachEntry(m, task, group,
                 [&](uint32_t row, uint32_t local) { sums.Add(local, gpair[row]); });
  }
  __syncthreads();
  sums.FlushTo(out + static_cast<uint64_t>(current) * total_bins + group.bin_begin);
}

// Groups too wide for shared memory: one task a block, straight into global memory.
__global__ void GlobalHistogramKernel(EllpackView m, const GradientSum* gpair,
                                      const HistBlockTask* tasks, const FeatureGroup* groups,
                                      uint32_t total_bins, GradientSum* out) {
  const HistBlockTask task = tasks[blockIdx.x];
  const FeatureGroup group = groups[blockIdx.y];
  GradientSum* hist = out + static_cast<uint64_t>(task.out) * total_bins + group.bin_begin;
  ForEachEntry(m, task, group, [&](uint32_t row, uint32_t local) {
    const GradientSum p = gpair[row];
    AtomicAddSum(hist + local, p.g, p.h);
  });
}

__global__ void SubtractKernel(const GradientSum* parent, const GradientSum* child,
                               GradientSum* dst, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    dst[i].g = parent[i].g - child[i].g;
    dst[i].h = parent[i].h - child[i].h;
  }
}

__global__ void SubtractManyKernel(const SubtractTask* tasks, std::size_t bins) {
  const SubtractTask t = tasks[blockIdx.y];
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < bins;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    t.dst[i].g = t.parent[i].g - t.child[i].g;
    t.dst[i].h = t.parent[i].h - t.child[i].h;
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

// Lets the shared kernel take `bytes` of dynamic shared memory (a setting of the kernel, not of a
// launch: set again before each launch, since another builder may have set it lower).
void AllowSharedBytes(std::size_t bytes) {
  RB_CUDA_CHECK(cudaFuncSetAttribute(
      SharedHistogramKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

}  // namespace

DeviceHistogramBuilder::DeviceHistogramBuilder(const DeviceMatrix* matrix,
                                               const HistogramCuts& cuts, uint32_t max_group_bins)
    : matrix_(matrix), total_bins_(cuts.TotalBins()) {
  const uint32_t fit = static_cast<uint32_t>(SharedBudget() / DevicePolicy::kHistSharedBytesPerBin);
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
  shared_bytes_ = static_cast<std::size_t>(widest) * DevicePolicy::kHistSharedBytesPerBin;
  AllowSharedBytes(shared_bytes_);
  int device = 0, sms = 0, per_sm = 0;
  RB_CUDA_CHECK(cudaGetDevice(&device));
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  RB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, SharedHistogramKernel,
                                                              kThreads, shared_bytes_));
  max_blocks_ = std::max(1, sms * std::max(per_sm, 1));
}

void DeviceHistogramBuilder::Build(const GradientSum* d_gpair, const std::vector<HistNode>& nodes,
                                   std::size_t num_out, GradientSum* d_out) {
  if (num_out == 0) return;
  RB_CUDA_CHECK(cudaMemsetAsync(d_out, 0, num_out * total_bins_ * sizeof(GradientSum)));
  const std::vector<HistBlockTask> tasks =
      MakeHistBlockTasks(nodes, DevicePolicy::kHistRowsPerTask);
  if (tasks.empty()) return;  // every node empty: all zero
  d_tasks_.CopyFrom(tasks);
  const EllpackView view = matrix_->View();
  if (!d_shared_groups_.empty()) {
    const unsigned int blocks =
        static_cast<unsigned int>(std::min<std::size_t>(tasks.size(), max_blocks_));
    const dim3 grid(blocks, static_cast<unsigned int>(d_shared_groups_.size()));
    AllowSharedBytes(shared_bytes_);
    SharedHistogramKernel<<<grid, kThreads, shared_bytes_>>>(
        view, d_gpair, d_tasks_.data(), tasks.size(), d_shared_groups_.data(), total_bins_, d_out);
    RB_CUDA_CHECK_LAUNCH();
  }
  if (!d_global_groups_.empty()) {
    RB_CHECK_MSG(tasks.size() <= 0x7fffffffu, "too many histogram tasks: " << tasks.size());
    const dim3 grid(static_cast<unsigned int>(tasks.size()),
                    static_cast<unsigned int>(d_global_groups_.size()));
    GlobalHistogramKernel<<<grid, kThreads>>>(view, d_gpair, d_tasks_.data(),
                                              d_global_groups_.data(), total_bins_, d_out);
    RB_CUDA_CHECK_LAUNCH();
  }
}

void DeviceHistogramBuilder::Subtract(const GradientSum* d_parent, const GradientSum* d_child,
                                      GradientSum* d_dst, std::size_t n) {
  if (n == 0) return;
  constexpr int kSubThreads = DevicePolicy::kElementwiseBlockThreads;
  SubtractKernel<<<GridStrideFor(n, kSubThreads), kSubThreads>>>(d_parent, d_child, d_dst, n);
  RB_CUDA_CHECK_LAUNCH();
}

void DeviceHistogramBuilder::SubtractMany(const SubtractTask* d_tasks, std::size_t n_tasks,
                                          std::size_t bins) {
  if (n_tasks == 0 || bins == 0) return;
  RB_CHECK_MSG(n_tasks <= 65535, "too many siblings in one level: " << n_tasks);
  constexpr int kSubThreads = DevicePolicy::kElementwiseBlockThreads;
  const dim3 grid(std::min<unsigned int>(GridFor(bins, kSubThreads), 64),
                  static_cast<unsigned int>(n_tasks));
  SubtractManyKernel<<<grid, kSubThreads>>>(d_tasks, bins);
  RB_CUDA_CHECK_LAUNCH();
}

std::vector<Histogram> BuildHistogramsOnDevice(const DeviceMatrix& matrix,
                                               const HistogramCuts& cuts,
                                               const std::vector<GradientSum>& gpair,
                                               const std::vector<std::vector<uint32_t>>& node_rows,
                                               uint32_t max_group_bins, bool identity_first) {
  std::vector<uint32_t> h_rows;
  std::vector<uint64_t> offsets;
  for (const auto& rows : node_rows) {
    offsets.push_back(h_rows.size());
    h_rows.insert(h_rows.end(), rows.begin(), rows.end());
  }
  DeviceBuffer<GradientSum> d_gpair(gpair);
  DeviceBuffer<uint32_t> d_rows(h_rows);
  std::vector<HistNode> nodes;
  for (std::size_t k = 0; k < node_rows.size(); ++k) {
    // Output histograms in reverse order, so that `out` is not the node's position.
    const uint32_t out = static_cast<uint32_t>(node_rows.size() - 1 - k);
    if (k == 0 && identity_first) {
      nodes.push_back(HistNode{nullptr, matrix.shape().num_rows, out});
    } else {
      nodes.push_back(HistNode{d_rows.data() + offsets[k], node_rows[k].size(), out});
    }
  }
  DeviceBuffer<GradientSum> d_out(node_rows.size() * cuts.TotalBins());
  DeviceHistogramBuilder builder(&matrix, cuts, max_group_bins);
  builder.Build(d_gpair.data(), nodes, node_rows.size(), d_out.data());
  const std::vector<GradientSum> all = d_out.ToHost();
  std::vector<Histogram> result(node_rows.size());
  for (std::size_t k = 0; k < result.size(); ++k) {
    const std::size_t at = (node_rows.size() - 1 - k) * cuts.TotalBins();
    result[k].assign(all.begin() + at, all.begin() + at + cuts.TotalBins());
  }
  return result;
}

}  // namespace ringboost
