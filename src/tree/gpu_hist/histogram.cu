// Device side of the histograms (histogram.h): the launch of the kernels (histogram_kernels.cuh),
// planned from the device's shared memory and occupancy.
#include <algorithm>
#include <cstdlib>

#include "tree/gpu_hist/common.cuh"
#include "tree/gpu_hist/histogram.h"
#include "tree/gpu_hist/histogram_kernels.cuh"

namespace ringboost {
namespace {

using namespace hist_kernels;  // NOLINT: the kernels this file launches

__global__ void SubtractManyKernel(const SubtractTask* tasks, std::size_t bins) {
  const SubtractTask t = tasks[blockIdx.y];
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < bins;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    t.dst[i].g = t.parent[i].g - t.child[i].g;
    t.dst[i].h = t.parent[i].h - t.child[i].h;
  }
}

// Shared memory one block may have: the opt-in limit of the current device.
std::size_t SharedOptin() {
  int device = 0, optin = 0;
  RB_CUDA_CHECK(cudaGetDevice(&device));
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return std::max<std::size_t>(DevicePolicy::kHistSharedBytes, optin);
}

// Lets `kernel` take `bytes` of dynamic shared memory (a setting of the kernel, not of a launch:
// set again before each launch, since another builder may have set it lower).
template <typename Kernel>
void AllowSharedBytes(Kernel kernel, std::size_t bytes) {
  RB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(bytes)));
}

// Rows of a tile whose rows take `row_bytes` of symbols and `gradient_bytes` each, within
// `budget` bytes: at most a row a thread, in whole warps; 0 when fewer than the policy's minimum
// fit.
uint32_t TileRows(std::size_t budget, uint32_t row_bytes, std::size_t gradient_bytes) {
  const std::size_t fit = budget / (row_bytes + gradient_bytes);
  const uint32_t rows = static_cast<uint32_t>(std::min<std::size_t>(fit, kThreads)) / 32 * 32;
  return rows >= DevicePolicy::kHistMinTileRows ? rows : 0;
}

// How `kernel` runs with sums of `words_per_cell` 32-bit words a cell for `max_cells` cells and
// (tile_rows > 0) a tile of rows of `row_bytes` symbols and a gradient of `gradient_bytes` each.
template <typename Kernel>
HistSharedLaunch PlanLaunch(Kernel kernel, std::size_t optin, uint32_t words_per_cell,
                            uint32_t max_cells, bool tiled, uint32_t row_bytes,
                            std::size_t gradient_bytes) {
  HistSharedLaunch plan;
  const std::size_t sums_bytes = (words_per_cell * std::size_t{max_cells} + 3) / 4 * 4 * 4;
  plan.tile_rows = tiled ? TileRows(std::min(DevicePolicy::kHistTileBytes, optin - sums_bytes),
                                    row_bytes, gradient_bytes)
                         : 0;
  if (tiled && plan.tile_rows == 0) return plan;  // no useful tile: the caller gathers
  plan.shared_bytes = sums_bytes + plan.tile_rows * (gradient_bytes + row_bytes);
  int device = 0, sms = 0, per_sm = 0;
  RB_CUDA_CHECK(cudaGetDevice(&device));
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  AllowSharedBytes(kernel, plan.shared_bytes);
  RB_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, plan.shared_bytes));
  plan.max_blocks = std::max(1, sms * std::max(per_sm, 1));
  return plan;
}

// The tiled kernel of `plan`: the warps' (warp_tiles) or the block's.
template <typename Sums, typename Grad>
auto TiledKernel(bool warp_tiles) {
  return warp_tiles ? WarpTiledHistogramKernel<Sums, Grad> : TiledHistogramKernel<Sums, Grad>;
}

// The launch of the tiled kernel for Sums and Grad (tile_rows 0: no useful tile fits): the warps'
// where `tiles` asks for it and a tile of a row a thread fits.
template <typename Sums, typename Grad>
HistSharedLaunch PlanTiled(std::size_t optin, uint32_t max_cells, uint32_t row_bytes,
                           HistTiles tiles) {
  HistSharedLaunch plan = PlanLaunch(TiledKernel<Sums, Grad>(false), optin, Sums::kWordsPerCell,
                                     max_cells, true, row_bytes, sizeof(Grad));
  if (tiles == HistTiles::kWarp && plan.tile_rows == static_cast<uint32_t>(kThreads)) {
    plan = PlanLaunch(TiledKernel<Sums, Grad>(true), optin, Sums::kWordsPerCell, max_cells, true,
                      row_bytes, sizeof(Grad));
    plan.warp_tiles = plan.tile_rows == static_cast<uint32_t>(kThreads);
  }
  return plan;
}

// Launches the shared-memory kernel that `plan` (tile_rows > 0: tiled) and the sums type say.
template <typename Sums, typename Grad>
void LaunchShared(const HistSharedLaunch& plan, const EllpackView& view, const Grad* gpair,
                  const DeviceBuffer<HistBlockTask>& tasks, std::size_t n_tasks,
                  const DeviceBuffer<FeatureGroup>& groups, uint32_t total_bins, GradientSum* out,
                  uint32_t max_cells, int block_limit) {
  const int max_blocks = block_limit > 0 ? std::min(block_limit, plan.max_blocks) : plan.max_blocks;
  const unsigned int blocks = static_cast<unsigned int>(std::min<std::size_t>(n_tasks, max_blocks));
  const dim3 grid(blocks, static_cast<unsigned int>(groups.size()));
  if (plan.tile_rows > 0) {
    const auto kernel = TiledKernel<Sums, Grad>(plan.warp_tiles);
    AllowSharedBytes(kernel, plan.shared_bytes);
    kernel<<<grid, kThreads, plan.shared_bytes>>>(view, gpair, tasks.data(), n_tasks, groups.data(),
                                                  total_bins, out, max_cells, plan.tile_rows);
  } else {
    AllowSharedBytes(GatherHistogramKernel<Grad>, plan.shared_bytes);
    GatherHistogramKernel<Grad><<<grid, kThreads, plan.shared_bytes>>>(
        view, gpair, tasks.data(), n_tasks, groups.data(), total_bins, out);
  }
  RB_CUDA_CHECK_LAUNCH();
}

}  // namespace

DeviceHistogramBuilder::DeviceHistogramBuilder(const DeviceMatrix* matrix,
                                               const HistogramCuts& cuts, uint32_t max_group_cells,
                                               HistTiles tiles)
    : matrix_(matrix), total_bins_(cuts.TotalBins()) {
  // The warps' tiles fold at task boundaries: a task must fit the narrow cells.
  static_assert(DevicePolicy::kHistRowsPerTask <= NarrowSums::kFoldRows, "narrow cells overflow");
  const std::size_t optin = SharedOptin();
  const uint32_t fit = static_cast<uint32_t>(std::min(optin, DevicePolicy::kHistSharedOptinBytes) /
                                             DevicePolicy::kHistSharedBytesPerCell);
  const uint32_t max_cells = max_group_cells == 0 ? fit : std::min(fit, max_group_cells);
  groups_ =
      GroupFeatures(cuts, max_cells, DevicePolicy::kHistMaxSharedGroups, matrix->column_of_host(),
                    matrix->shape().row_stride, DevicePolicy::kHistLaneAlign);
  std::vector<FeatureGroup> h_shared, h_global;
  uint32_t widest_row = 0;
  max_cells_ = 0;
  for (const FeatureGroup& g : groups_) {
    (g.shared ? h_shared : h_global).push_back(g);
    if (!g.shared) continue;
    max_cells_ = std::max(max_cells_, g.Cells());
    widest_row = std::max(widest_row, (g.slot_end - g.slot_begin) * matrix->shape().symbol_bytes);
  }
  d_shared_groups_.CopyFrom(h_shared);
  d_global_groups_.CopyFrom(h_global);
  // Dense rows go through a tile buffer (TiledHistogramKernel) where a useful tile fits.
  const bool dense = matrix->shape().dense;
  if (dense) exact_ = PlanTiled<SharedSums, GradientSum>(optin, max_cells_, widest_row, tiles);
  if (exact_.tile_rows == 0) {
    exact_ = PlanLaunch(GatherHistogramKernel<GradientSum>, optin, SharedSums::kWordsPerCell,
                        max_cells_, false, 0, 0);
  }
  // Packed low-bit cells on dense tiles, where no wide sum can overflow: at most every row of the
  // worker in one cell, each |value| <= kLevels.
  const bool wide_fits = matrix->shape().num_rows * LowBitPolicy::kLevels <= 0x7fffffffu;
  if (dense && wide_fits && exact_.tile_rows > 0) {
    narrow_ = PlanTiled<NarrowSums, uint32_t>(optin, max_cells_, widest_row, tiles);
  }
}

void DeviceHistogramBuilder::Build(const DeviceHistGradients& grad,
                                   const std::vector<HistNode>& nodes, std::size_t num_out,
                                   GradientSum* d_out) {
  RB_CHECK((grad.exact == nullptr) != (grad.low_bit == nullptr));
  if (num_out == 0) return;
  RB_CUDA_CHECK(cudaMemsetAsync(d_out, 0, num_out * total_bins_ * sizeof(GradientSum)));
  const std::vector<HistBlockTask> tasks =
      MakeHistBlockTasks(nodes, DevicePolicy::kHistRowsPerTask);
  if (tasks.empty()) return;  // every node empty: all zero
  d_tasks_.CopyFrom(tasks);
  const EllpackView view = matrix_->View();
  if (!d_shared_groups_.empty()) {
    if (grad.exact != nullptr) {
      LaunchShared<SharedSums>(exact_, view, grad.exact, d_tasks_, tasks.size(), d_shared_groups_,
                               total_bins_, d_out, max_cells_, block_limit_);
    } else if (narrow_.tile_rows > 0) {
      LaunchShared<NarrowSums>(narrow_, view, grad.low_bit, d_tasks_, tasks.size(),
                               d_shared_groups_, total_bins_, d_out, max_cells_, block_limit_);
    } else {
      LaunchShared<SharedSums>(exact_, view, grad.low_bit, d_tasks_, tasks.size(), d_shared_groups_,
                               total_bins_, d_out, max_cells_, block_limit_);
    }
  }
  if (!d_global_groups_.empty()) {
    RB_CHECK_MSG(tasks.size() <= 0x7fffffffu, "too many histogram tasks: " << tasks.size());
    const dim3 grid(static_cast<unsigned int>(tasks.size()),
                    static_cast<unsigned int>(d_global_groups_.size()));
    if (grad.exact != nullptr) {
      GlobalHistogramKernel<<<grid, kThreads>>>(view, grad.exact, d_tasks_.data(),
                                                d_global_groups_.data(), total_bins_, d_out);
    } else {
      GlobalHistogramKernel<<<grid, kThreads>>>(view, grad.low_bit, d_tasks_.data(),
                                                d_global_groups_.data(), total_bins_, d_out);
    }
    RB_CUDA_CHECK_LAUNCH();
  }
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
                                               uint32_t max_group_cells, bool identity_first,
                                               bool low_bit, HistTiles tiles, int block_limit) {
  std::vector<uint32_t> h_rows;
  std::vector<uint64_t> offsets;
  for (const auto& rows : node_rows) {
    offsets.push_back(h_rows.size());
    h_rows.insert(h_rows.end(), rows.begin(), rows.end());
  }
  DeviceBuffer<GradientSum> d_gpair;
  DeviceBuffer<uint32_t> d_packed;
  DeviceHistGradients grad;
  if (low_bit) {
    std::vector<uint32_t> packed;
    for (const GradientSum& p : gpair) {
      RB_CHECK(std::abs(p.g) <= LowBitPolicy::kLevels && std::abs(p.h) <= LowBitPolicy::kLevels);
      packed.push_back(PackLowBit(p.g, p.h));
    }
    d_packed.CopyFrom(packed);
    grad.low_bit = d_packed.data();
  } else {
    d_gpair.CopyFrom(gpair);
    grad.exact = d_gpair.data();
  }
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
  DeviceHistogramBuilder builder(&matrix, cuts, max_group_cells, tiles);
  builder.LimitBlocks(block_limit);
  builder.Build(grad, nodes, node_rows.size(), d_out.data());
  const std::vector<GradientSum> all = d_out.ToHost();
  std::vector<Histogram> result(node_rows.size());
  for (std::size_t k = 0; k < result.size(); ++k) {
    const std::size_t at = (node_rows.size() - 1 - k) * cuts.TotalBins();
    result[k].assign(all.begin() + at, all.begin() + at + cuts.TotalBins());
  }
  return result;
}

}  // namespace ringboost
