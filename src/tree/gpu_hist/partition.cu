// Device side of the row partition (partition.h): by tiles, each marked and scattered in one pass.
#include <algorithm>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <numeric>

#include "tree/gpu_hist/common.cuh"
#include "tree/gpu_hist/partition.h"

namespace ringboost {
namespace {

// A block takes one tile: the task whose tiles hold `tile` (tasks sorted by first_tile, each
// with at least one tile) and the tile's positions [begin, end).
struct TileOf {
  int task;
  uint64_t begin, end;
};

__device__ TileOf FindTile(const PartitionTaskView* tasks, int n_tasks, uint32_t tile) {
  int lo = 0, hi = n_tasks;  // the first task with first_tile > tile
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (tasks[mid].first_tile <= tile) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const PartitionTaskView& task = tasks[lo - 1];
  const uint64_t begin = task.begin + (tile - task.first_tile) * kPartitionTileRows;
  const uint64_t end = begin + kPartitionTileRows;
  return TileOf{lo - 1, begin, end < task.end ? end : task.end};
}

constexpr int kTileThreads = DevicePolicy::kPartitionBlockThreads;
constexpr int kTileItems = static_cast<int>(kPartitionTileItems);
static_assert(kPartitionTileRows == static_cast<uint64_t>(kTileThreads) * kTileItems,
              "a tile is a block's threads times their items");

// One tile a block, in one pass: the block loads the tile's row ids (each thread kTileItems
// consecutive positions), each thread reads their bins (kTileItems gathers in flight), a block
// scan of the marks gives each row its place among the tile's left or right rows, and one thread
// reserves the tile's rows in the task's two counters (counts[2 * task]: left rows taken from the
// node's start, counts[2 * task + 1]: right rows taken from its end) by one atomic each. The
// destinations (TileDestination) go through shared memory back to position order across the
// threads, so that a warp's stores fall on a few runs.
__global__ void __launch_bounds__(kTileThreads)
    PartitionTilesKernel(EllpackView matrix, const PartitionTaskView* tasks, int n_tasks,
                         uint32_t* counts) {
  using LoadRows =
      cub::BlockLoad<uint32_t, kTileThreads, kTileItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<uint32_t, kTileThreads>;
  using Exchange = cub::BlockExchange<uint32_t, kTileThreads, kTileItems>;
  __shared__ union {
    typename LoadRows::TempStorage load_rows;
    typename Scan::TempStorage scan;
    typename Exchange::TempStorage exchange;
  } temp;
  __shared__ uint32_t bases[2];  // the tile's left base and right end (TileDestination)
  const TileOf tile = FindTile(tasks, n_tasks, blockIdx.x);
  const PartitionTaskView& task = tasks[tile.task];
  const int valid = static_cast<int>(tile.end - tile.begin);
  uint32_t rows[kTileItems];
  LoadRows(temp.load_rows).Load(task.src + tile.begin, rows, valid, 0u);
  // Blocked arrangement: thread t holds the tile's places t * kTileItems + i.
  uint32_t left[kTileItems];
#pragma unroll
  for (int i = 0; i < kTileItems; ++i) {
    const int k = static_cast<int>(threadIdx.x) * kTileItems + i;
    left[i] = k < valid && GoesLeft(matrix, rows[i], task.feature, task.split_bin,
                                    task.default_left, task.left_bits);
  }
  __syncthreads();
  uint32_t left_before[kTileItems], tile_left;
  Scan(temp.scan).ExclusiveSum(left, left_before, tile_left);
  if (threadIdx.x == 0) {
    const uint32_t tile_right = static_cast<uint32_t>(valid) - tile_left;
    bases[0] = atomicAdd(counts + 2 * tile.task, tile_left);
    bases[1] = atomicAdd(counts + 2 * tile.task + 1, tile_right) + tile_right;
  }
  __syncthreads();
  uint32_t to[kTileItems];
#pragma unroll
  for (int i = 0; i < kTileItems; ++i) {
    const int k = static_cast<int>(threadIdx.x) * kTileItems + i;
    to[i] = k < valid ? static_cast<uint32_t>(TileDestination(task.begin, task.end, bases[0],
                                                              bases[1], static_cast<uint32_t>(k),
                                                              left_before[i], left[i] != 0) -
                                              task.begin)
                      : ~0u;
  }
  uint32_t striped_to[kTileItems], striped_rows[kTileItems];
  Exchange(temp.exchange).BlockedToStriped(to, striped_to);
  __syncthreads();
  Exchange(temp.exchange).BlockedToStriped(rows, striped_rows);
#pragma unroll
  for (int i = 0; i < kTileItems; ++i) {
    if (striped_to[i] != ~0u) task.dst[task.begin + striped_to[i]] = striped_rows[i];
  }
}

__global__ void AddLeafValuesKernel(const LeafChunk* chunks, float* preds, int stride, int group) {
  const LeafChunk c = chunks[blockIdx.x];
  for (uint64_t k = threadIdx.x; k < c.n; k += blockDim.x) {
    preds[static_cast<uint64_t>(c.rows[k]) * stride + group] += c.value;
  }
}

// The walk's nodes as WalkLeafSumsKernel reads them: from global memory (kShared false) or from
// the block's copy in shared memory at `smem`, made by Stage (the caller's barrier after it).
template <bool kShared>
struct WalkNodes {
  const DenseWalkNode* global;
  DenseWalkNode* smem;
  uint32_t n;
  __device__ void Stage() const {
    if (kShared) {
      for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) smem[i] = global[i];
    }
  }
  __device__ DenseWalkNode operator[](int32_t nid) const {
    return kShared ? smem[nid] : global[nid];
  }
};

// The leaf of `row` (a dense matrix's row-major symbols): its node id; *leaf gets the node.
template <typename Nodes>
__device__ __forceinline__ int32_t WalkToLeaf(const EllpackView& matrix, const Nodes& nodes,
                                              const uint32_t* cat_words, uint64_t row,
                                              DenseWalkNode* leaf) {
  int32_t nid = 0;
  DenseWalkNode node = nodes[0];
  while (node.left >= 0) {
    nid = node.Next(matrix.Symbol(row, node.slot), cat_words);
    node = nodes[nid];
  }
  *leaf = node;
  return nid;
}

// cat_words: the partitioner's category words (DenseWalkNode::split indexes them); null when none.
__global__ void WalkLeafValuesKernel(EllpackView matrix, const DenseWalkNode* __restrict__ nodes,
                                     const uint32_t* __restrict__ cat_words, uint64_t n,
                                     float* preds, int stride, int group) {
  for (uint64_t row = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; row < n;
       row += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    DenseWalkNode leaf;
    WalkToLeaf(matrix, nodes, cat_words, row, &leaf);
    preds[row * stride + group] += __uint_as_float(leaf.slot);
  }
}

// Each chunk's sum of gpair over its rows, added to sums[chunk.leaf] (modulo 2^64: exact).
__global__ void LeafSumKernel(const LeafSumChunk* chunks, const GradientSum* gpair,
                              GradientSum* sums) {
  using Reduce = cub::BlockReduce<long long, DevicePolicy::kPartitionBlockThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const LeafSumChunk c = chunks[blockIdx.x];
  long long g = 0, h = 0;
  for (uint64_t k = threadIdx.x; k < c.n; k += blockDim.x) {
    const GradientSum p = gpair[c.rows[k]];
    g += p.g;
    h += p.h;
  }
  const long long block_g = Reduce(temp).Sum(g);
  __syncthreads();
  const long long block_h = Reduce(temp).Sum(h);
  if (threadIdx.x == 0) AtomicAddSum(sums + c.leaf, block_g, block_h);
}

// Every row walks the tree to its leaf (nodes' splits as WalkLeafValuesKernel reads them), writes
// the leaf's node id to leaf_of_row and adds its gradient to the block's exact sum of that node
// (shared memory: four arrays of n_nodes words, g low, g high, h low, h high, before the nodes'
// copy where kShared); the block's sums go to sums[nid] at the end. Blocks stride over the rows.
template <bool kShared>
__global__ void WalkLeafSumsKernel(EllpackView matrix, const DenseWalkNode* __restrict__ walk,
                                   const uint32_t* __restrict__ cat_words, uint32_t n_nodes,
                                   uint64_t n, const GradientSum* gpair, uint16_t* leaf_of_row,
                                   GradientSum* sums) {
  extern __shared__ uint4 smem_aligned[];  // 16-byte aligned: the nodes' copy follows the sums
  auto* words = reinterpret_cast<uint32_t*>(smem_aligned);
  const WalkNodes<kShared> nodes{walk, reinterpret_cast<DenseWalkNode*>(words + 4 * n_nodes),
                                 n_nodes};
  for (uint32_t i = threadIdx.x; i < 4 * n_nodes; i += blockDim.x) words[i] = 0;
  nodes.Stage();
  __syncthreads();  // the sums zeroed, the nodes copied
  for (uint64_t row = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; row < n;
       row += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    DenseWalkNode leaf;
    const int32_t nid = WalkToLeaf(matrix, nodes, cat_words, row, &leaf);
    leaf_of_row[row] = static_cast<uint16_t>(nid);
    const GradientSum p = gpair[row];
    SharedAdd64(words + nid, words + n_nodes + nid, p.g);
    SharedAdd64(words + 2 * n_nodes + nid, words + 3 * n_nodes + nid, p.h);
  }
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < n_nodes; i += blockDim.x) {
    const auto word = [&](uint32_t array) {
      return static_cast<uint64_t>(words[array * n_nodes + i]);
    };
    const auto g = static_cast<int64_t>(word(1) << 32 | word(0));
    const auto h = static_cast<int64_t>(word(3) << 32 | word(2));
    if (g != 0 || h != 0) AtomicAddSum(sums + i, g, h);
  }
}

// preds[row * stride + group] += the value of the row's leaf (from WalkLeafSumsKernel).
__global__ void AddLeafValuesByRowKernel(const uint16_t* leaf_of_row, const DenseWalkNode* nodes,
                                         uint64_t n, float* preds, int stride, int group) {
  for (uint64_t row = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; row < n;
       row += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    preds[row * stride + group] += __uint_as_float(nodes[leaf_of_row[row]].slot);
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
  leaf_of_row_fresh_ = false;
  cat_words_.clear();
  cat_dirty_ = false;
}

const uint32_t* DevicePartitioner::DeviceCategoryWords() {
  if (cat_dirty_) {
    d_cat_words_.CopyFrom(cat_words_);
    cat_dirty_ = false;
  }
  return cat_words_.empty() ? nullptr : d_cat_words_.data();
}

void DevicePartitioner::UploadWalk(const DeviceMatrix& matrix) {
  d_walk_.CopyFrom(DenseWalk(walk_, matrix.column_of_host()));
}

void DevicePartitioner::EnsureNode(int nid) {
  if (static_cast<std::size_t>(nid) >= ranges_.size()) {
    ranges_.resize(nid + 1);
    where_.resize(nid + 1, 0);
    walk_.resize(nid + 1);
  }
}

void DevicePartitioner::RecordSplit(const DeviceSplitTask& t) {
  EnsureNode(std::max(t.left, t.right));
  int32_t cat = -1;
  if (!t.left_bits.empty()) {  // a categorical split: its left set joins the category words
    cat = static_cast<int32_t>(cat_words_.size());
    cat_words_.insert(cat_words_.end(), t.left_bits.begin(), t.left_bits.end());
    cat_dirty_ = true;
  }
  walk_[t.nid] = WalkNode{t.feature, t.split_bin, t.left, t.right, 0.0f, cat};
}

void DevicePartitioner::RecordSplits(const std::vector<DeviceSplitTask>& tasks) {
  for (const DeviceSplitTask& t : tasks) {
    RecordSplit(t);
    ranges_[t.left] = ranges_[t.right] = RowRange{};
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
    RecordSplit(t);
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
  const uint32_t* d_cat_words = DeviceCategoryWords();
  std::vector<PartitionTaskView> views;
  for (std::size_t i : order) {
    const DeviceSplitTask& t = tasks[i];
    const RowRange r = ranges_[t.nid];
    const int from = where_[t.nid];
    const int32_t cat = walk_[t.nid].cat;
    views.push_back(PartitionTaskView{r.begin, r.end, d_buffers_[from].data(),
                                      d_buffers_[1 - from].data(), t.feature, t.split_bin,
                                      t.default_left, cat < 0 ? nullptr : d_cat_words + cat});
  }
  const std::vector<uint64_t> n_left = PartitionTiles(matrix, std::move(views));
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

std::vector<uint64_t> DevicePartitioner::PartitionTiles(const DeviceMatrix& matrix,
                                                        std::vector<PartitionTaskView> views) {
  uint64_t n_tiles = 0;
  for (PartitionTaskView& v : views) {
    v.first_tile = static_cast<uint32_t>(n_tiles);
    n_tiles += (v.end - v.begin + kPartitionTileRows - 1) / kPartitionTileRows;
  }
  const int n_tasks = static_cast<int>(views.size());
  d_tasks_.CopyFrom(views);
  d_counts_.Resize(2 * views.size());
  RB_CUDA_CHECK(cudaMemsetAsync(d_counts_.data(), 0, d_counts_.size() * sizeof(uint32_t)));
  PartitionTilesKernel<<<static_cast<unsigned int>(n_tiles), kTileThreads>>>(
      matrix.View(), d_tasks_.data(), n_tasks, d_counts_.data());
  RB_CUDA_CHECK_LAUNCH();
  const std::vector<uint32_t> counts = d_counts_.ToHost();
  std::vector<uint64_t> n_left(views.size());
  for (std::size_t k = 0; k < views.size(); ++k) {
    RB_CHECK(uint64_t{counts[2 * k]} + counts[2 * k + 1] == views[k].end - views[k].begin);
    n_left[k] = counts[2 * k];
  }
  return n_left;
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
    UploadWalk(matrix);
    if (leaf_of_row_fresh_) {  // WalkLeafSums walked this tree already
      AddLeafValuesByRowKernel<<<Grid(num_rows_), DevicePolicy::kPartitionBlockThreads>>>(
          d_leaf_of_row_.data(), d_walk_.data(), num_rows_, d_preds, stride, group);
    } else {
      const uint32_t* d_cat_words = DeviceCategoryWords();
      EllpackView view = matrix.View();
      view.columns = nullptr;  // rows in order: each reads its own bytes of the row-major symbols
      WalkLeafValuesKernel<<<Grid(num_rows_), DevicePolicy::kPartitionBlockThreads>>>(
          view, d_walk_.data(), d_cat_words, num_rows_, d_preds, stride, group);
    }
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

std::vector<GradientSum> DevicePartitioner::LeafSums(const std::vector<int>& leaves,
                                                     const GradientSum* d_gpair) {
  constexpr uint64_t kChunkRows = DevicePolicy::kLeafChunkRows;
  std::vector<LeafSumChunk> chunks;
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const uint64_t size = ranges_[leaves[k]].size();
    for (uint64_t b = 0; b < size; b += kChunkRows) {
      chunks.push_back(LeafSumChunk{d_node_rows(leaves[k]) + b, std::min(kChunkRows, size - b),
                                    static_cast<uint32_t>(k)});
    }
  }
  d_leaf_sums_.Resize(std::max<std::size_t>(leaves.size(), 1));
  RB_CUDA_CHECK(cudaMemsetAsync(d_leaf_sums_.data(), 0, d_leaf_sums_.size() * sizeof(GradientSum)));
  if (!chunks.empty()) {
    d_sum_chunks_.CopyFrom(chunks);
    LeafSumKernel<<<static_cast<unsigned int>(chunks.size()),
                    DevicePolicy::kPartitionBlockThreads>>>(d_sum_chunks_.data(), d_gpair,
                                                            d_leaf_sums_.data());
    RB_CUDA_CHECK_LAUNCH();
  }
  std::vector<GradientSum> sums = d_leaf_sums_.ToHost();
  sums.resize(leaves.size());
  return sums;
}

std::vector<GradientSum> DevicePartitioner::WalkLeafSums(const DeviceMatrix& matrix,
                                                         const GradientSum* d_gpair,
                                                         int num_nodes) {
  RB_CHECK(matrix.shape().dense && num_nodes > 0 && num_nodes <= kMaxWalkSumNodes);
  EnsureNode(num_nodes - 1);
  d_leaf_sums_.Resize(num_nodes);
  RB_CUDA_CHECK(cudaMemsetAsync(d_leaf_sums_.data(), 0, num_nodes * sizeof(GradientSum)));
  if (num_rows_ > 0) {
    if (d_leaf_of_row_.size() < num_rows_) d_leaf_of_row_.Resize(num_rows_);
    UploadWalk(matrix);
    const uint32_t* d_cat_words = DeviceCategoryWords();
    EllpackView view = matrix.View();
    view.columns = nullptr;  // rows in order: each reads its own bytes of the row-major symbols
    // The blocks the device holds at once, each over many rows, so that few block sums go to
    // global memory.
    constexpr int kThreads = DevicePolicy::kPartitionBlockThreads;
    const std::size_t sum_bytes = 4 * sizeof(uint32_t) * num_nodes;
    const std::size_t node_bytes = num_nodes * sizeof(DenseWalkNode);
    const auto launch = [&](auto kernel, std::size_t bytes) {
      kernel<<<ResidentGrid(num_rows_, kThreads), kThreads, bytes>>>(
          view, d_walk_.data(), d_cat_words, static_cast<uint32_t>(num_nodes), num_rows_, d_gpair,
          d_leaf_of_row_.data(), d_leaf_sums_.data());
    };
    if (sum_bytes + node_bytes <= kWalkSharedBytes) {
      launch(WalkLeafSumsKernel<true>, sum_bytes + node_bytes);
    } else {
      launch(WalkLeafSumsKernel<false>, sum_bytes);
    }
    RB_CUDA_CHECK_LAUNCH();
    leaf_of_row_fresh_ = true;
  }
  std::vector<GradientSum> sums = d_leaf_sums_.ToHost();
  sums.resize(num_nodes);
  return sums;
}

}  // namespace ringboost
