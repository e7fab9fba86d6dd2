// Device side of the row partition (partition.h): mark bits, scan the tiles, scatter.
#include <algorithm>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <numeric>

#include "tree/gpu_hist/common.cuh"
#include "tree/gpu_hist/partition.h"

namespace ringboost {
namespace {

// The task whose range holds position j, or -1 (tasks sorted by begin, ranges disjoint).
__device__ int FindTask(const PartitionTaskView* tasks, int n_tasks, uint64_t j) {
  int lo = 0, hi = n_tasks;  // first task with begin > j
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (tasks[mid].begin <= j) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo > 0 && j < tasks[lo - 1].end ? lo - 1 : -1;
}

constexpr int kThreads = DevicePolicy::kPartitionBlockThreads;
constexpr uint32_t kTileWords = kThreads;  // a word of marks a thread in the tile's scan

// The marks of positions [lo, lo + n) as MarkBitsView's bits and word_prefix, and each tile's
// count in tile_count[tile]. A block takes whole tiles; a warp computes 32 marks at once (one
// word by ballot), then the block scans its tile's word counts.
__global__ void __launch_bounds__(kThreads)
    MarkBitsKernel(EllpackView matrix, const PartitionTaskView* tasks, int n_tasks, uint64_t lo,
                   uint64_t n, uint32_t* bits, uint32_t* word_prefix, uint32_t* tile_count) {
  using BlockScan = cub::BlockScan<uint32_t, kThreads>;
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ uint32_t word_count[kTileWords];
  const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = kThreads / 32;
  const uint64_t n_words = (n + 31) / 32;
  for (uint64_t tile = blockIdx.x; tile * kTileWords < n_words; tile += gridDim.x) {
    const uint64_t first_word = tile * kTileWords;
    for (uint32_t w = warp; w < kTileWords; w += warps) {  // the same trips for a warp's lanes
      const uint64_t k = (first_word + w) * 32 + lane;
      bool mark = false;
      const int t = k < n ? FindTask(tasks, n_tasks, lo + k) : -1;
      if (t >= 0) {
        const PartitionTaskView& task = tasks[t];
        mark = GoesLeft(matrix, task.src[lo + k], task.feature, task.split_bin, task.default_left);
      }
      const uint32_t word = __ballot_sync(0xffffffffu, mark);
      if (lane == 0) {
        if (first_word + w < n_words) bits[first_word + w] = word;
        word_count[w] = __popc(word);
      }
    }
    __syncthreads();
    uint32_t before = 0, total = 0;
    BlockScan(scan_storage).ExclusiveSum(word_count[threadIdx.x], before, total);
    if (first_word + threadIdx.x < n_words) word_prefix[first_word + threadIdx.x] = before;
    if (threadIdx.x == 0) tile_count[tile] = total;
    __syncthreads();  // word_count and scan_storage are reused by the next tile
  }
}

// Per task: the marks before its first position and its rows that go left.
__global__ void CountLeftKernel(const PartitionTaskView* tasks, int n_tasks, uint64_t lo,
                                MarkBitsView marks, uint64_t* left_base, uint64_t* n_left) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n_tasks) return;
  const uint64_t base = LeftBefore(marks, tasks[t].begin - lo);
  left_base[t] = base;
  n_left[t] = LeftBefore(marks, tasks[t].end - lo) - base;
}

__global__ void ScatterKernel(const PartitionTaskView* tasks, int n_tasks, uint64_t lo,
                              MarkBitsView marks, const uint64_t* left_base,
                              const uint64_t* n_left) {
  for (uint64_t k = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; k < marks.n;
       k += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    const int t = FindTask(tasks, n_tasks, lo + k);
    if (t < 0) continue;
    const PartitionTaskView& task = tasks[t];
    const bool left = (marks.bits[k / 32] >> (k % 32)) & 1u;
    const uint64_t to = PartitionDestination(task.begin, lo + k,
                                             LeftBefore(marks, k) - left_base[t], n_left[t], left);
    task.dst[to] = task.src[lo + k];
  }
}

__global__ void AddLeafValuesKernel(const LeafChunk* chunks, float* preds, int stride, int group) {
  const LeafChunk c = chunks[blockIdx.x];
  for (uint64_t k = threadIdx.x; k < c.n; k += blockDim.x) {
    preds[static_cast<uint64_t>(c.rows[k]) * stride + group] += c.value;
  }
}

__global__ void WalkLeafValuesKernel(EllpackView matrix, const WalkNode* __restrict__ nodes,
                                     uint64_t n, float* preds, int stride, int group) {
  for (uint64_t row = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; row < n;
       row += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    WalkNode node = nodes[0];
    while (node.left >= 0) {
      const bool left = GoesLeft(matrix, row, node.feature, node.split_bin, node.default_left != 0);
      node = nodes[left ? node.left : node.right];
    }
    preds[row * stride + group] += node.value;
  }
}

__global__ void IotaKernel(uint32_t* out, uint64_t n) {
  for (uint64_t k = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    out[k] = static_cast<uint32_t>(k);
  }
}

unsigned int Grid(uint64_t n) { return GridStrideFor(n, DevicePolicy::kPartitionBlockThreads); }

}  // namespace

DevicePartitioner::DevicePartitioner(uint64_t num_rows) : num_rows_(num_rows) {
  RB_CHECK_MSG(num_rows < (uint64_t{1} << 32), "too many rows for one worker: " << num_rows);
  d_buffers_[0].Resize(num_rows);
  d_buffers_[1].Resize(num_rows);
  const uint64_t n_words = (num_rows + 31) / 32;
  d_bits_.Resize(std::max<uint64_t>(n_words, 1));
  d_word_prefix_.Resize(std::max<uint64_t>(n_words, 1));
  d_tile_prefix_.Resize((n_words + kTileWords - 1) / kTileWords + 1);
  Reset();
}

void DevicePartitioner::Reset() {
  if (num_rows_ > 0) {
    IotaKernel<<<Grid(num_rows_), DevicePolicy::kPartitionBlockThreads>>>(d_buffers_[0].data(),
                                                                          num_rows_);
    RB_CUDA_CHECK_LAUNCH();
  }
  ranges_.assign(1, RowRange{0, num_rows_});
  where_.assign(1, 0);
  walk_.assign(1, WalkNode{});
}

void DevicePartitioner::EnsureNode(int nid) {
  if (static_cast<std::size_t>(nid) >= ranges_.size()) {
    ranges_.resize(nid + 1);
    where_.resize(nid + 1, 0);
    walk_.resize(nid + 1);
  }
}

std::vector<uint32_t> DevicePartitioner::NodeRowsToHost(int nid) const {
  std::vector<uint32_t> rows(ranges_[nid].size());
  if (!rows.empty()) {
    detail::CopyToHost(rows.data(), d_node_rows(nid), rows.size() * sizeof(uint32_t));
  }
  return rows;
}

void DevicePartitioner::Partition(const DeviceMatrix& matrix,
                                  const std::vector<DeviceSplitTask>& tasks) {
  // Nodes without rows move nothing: both children start empty where the node was. The others
  // have disjoint ranges, ordered by their first position for the kernels' binary search.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const DeviceSplitTask& t = tasks[i];
    EnsureNode(std::max(t.left, t.right));
    walk_[t.nid] =
        WalkNode{t.feature, t.split_bin, t.left, t.right, 0.0f, t.default_left ? 1u : 0u};
    const RowRange r = ranges_[t.nid];
    if (r.size() > 0) {
      order.push_back(i);
      continue;
    }
    ranges_[t.left] = ranges_[t.right] = RowRange{r.begin, r.begin};
    where_[t.left] = where_[t.right] = where_[t.nid];
  }
  if (order.empty()) return;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ranges_[tasks[a].nid].begin < ranges_[tasks[b].nid].begin;
  });
  std::vector<PartitionTaskView> views;
  for (std::size_t i : order) {
    const DeviceSplitTask& t = tasks[i];
    const RowRange r = ranges_[t.nid];
    const int from = where_[t.nid];
    views.push_back(PartitionTaskView{r.begin, r.end, d_buffers_[from].data(),
                                      d_buffers_[1 - from].data(), t.feature, t.split_bin,
                                      t.default_left});
  }
  const uint64_t lo = views.front().begin, n = views.back().end - lo;
  const std::vector<uint64_t> n_left = MarkScanScatter(matrix, views, lo, n);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const DeviceSplitTask& t = tasks[order[k]];
    const RowRange r = ranges_[t.nid];
    const uint8_t to = 1 - where_[t.nid];
    ranges_[t.left] = RowRange{r.begin, r.begin + n_left[k]};
    ranges_[t.right] = RowRange{r.begin + n_left[k], r.end};
    where_[t.left] = to;
    where_[t.right] = to;
  }
}

std::vector<uint64_t> DevicePartitioner::MarkScanScatter(
    const DeviceMatrix& matrix, const std::vector<PartitionTaskView>& views, uint64_t lo,
    uint64_t n) {
  const int n_tasks = static_cast<int>(views.size());
  d_tasks_.CopyFrom(views);
  d_left_base_.Resize(views.size());
  d_n_left_.Resize(views.size());
  const uint64_t n_words = (n + 31) / 32, n_tiles = (n_words + kTileWords - 1) / kTileWords;
  // The tiles' counts go to d_tile_prefix_[0, n_tiles) and are scanned in place, with one more
  // (zero) entry so that d_tile_prefix_[n_tiles] ends as the total.
  RB_CUDA_CHECK(cudaMemsetAsync(d_tile_prefix_.data() + n_tiles, 0, sizeof(uint32_t)));
  MarkBitsKernel<<<GridStrideFor(n_tiles, 1), kThreads>>>(
      matrix.View(), d_tasks_.data(), n_tasks, lo, n, d_bits_.data(), d_word_prefix_.data(),
      d_tile_prefix_.data());
  RB_CUDA_CHECK_LAUNCH();
  std::size_t temp_bytes = 0;
  RB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_tile_prefix_.data(),
                                              d_tile_prefix_.data(), n_tiles + 1));
  if (d_scan_temp_.size() < temp_bytes) d_scan_temp_.Resize(std::max<std::size_t>(temp_bytes, 1));
  RB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
      d_scan_temp_.data(), temp_bytes, d_tile_prefix_.data(), d_tile_prefix_.data(), n_tiles + 1));
  const MarkBitsView marks{d_bits_.data(), d_word_prefix_.data(), d_tile_prefix_.data(), n,
                           kTileWords};
  CountLeftKernel<<<GridFor(n_tasks, kThreads), kThreads>>>(d_tasks_.data(), n_tasks, lo, marks,
                                                            d_left_base_.data(), d_n_left_.data());
  RB_CUDA_CHECK_LAUNCH();
  ScatterKernel<<<Grid(n), kThreads>>>(d_tasks_.data(), n_tasks, lo, marks, d_left_base_.data(),
                                       d_n_left_.data());
  RB_CUDA_CHECK_LAUNCH();
  return d_n_left_.ToHost();
}

void DevicePartitioner::AddLeafValues(const DeviceMatrix& matrix, const std::vector<int>& leaves,
                                      const std::vector<float>& values, float* d_preds, int stride,
                                      int group) {
  RB_CHECK(leaves.size() == values.size());
  if (matrix.shape().dense) {
    if (num_rows_ == 0) return;
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      EnsureNode(leaves[k]);
      RB_CHECK(walk_[leaves[k]].left < 0);
      walk_[leaves[k]].value = values[k];
    }
    d_walk_.CopyFrom(walk_);
    EllpackView view = matrix.View();
    view.columns = nullptr;  // rows in order: each reads its own bytes of the row-major symbols
    WalkLeafValuesKernel<<<Grid(num_rows_), DevicePolicy::kPartitionBlockThreads>>>(
        view, d_walk_.data(), num_rows_, d_preds, stride, group);
    RB_CUDA_CHECK_LAUNCH();
    return;
  }
  constexpr uint64_t kChunkRows = DevicePolicy::kLeafChunkRows;
  std::vector<LeafChunk> chunks;
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const uint64_t size = ranges_[leaves[k]].size();
    for (uint64_t b = 0; b < size; b += kChunkRows) {
      chunks.push_back(
          LeafChunk{d_node_rows(leaves[k]) + b, std::min(kChunkRows, size - b), values[k]});
    }
  }
  if (chunks.empty()) return;
  d_leaf_chunks_.CopyFrom(chunks);
  AddLeafValuesKernel<<<static_cast<unsigned int>(chunks.size()),
                        DevicePolicy::kPartitionBlockThreads>>>(d_leaf_chunks_.data(), d_preds,
                                                                stride, group);
  RB_CUDA_CHECK_LAUNCH();
}

}  // namespace ringboost
