// The histogram kernels (histogram.h) and their device helpers: the shared sums (exact and
// low-bit narrow cells), the walk over a task's slots, the gather, tiled (block-wide and warp)
// and global-atomics kernels. Included by histogram.cu alone, which plans and launches them.
#pragma once

#include "tree/gpu_hist/common.cuh"
#include "tree/gpu_hist/histogram.h"

namespace ringboost {
namespace hist_kernels {

constexpr int kThreads = DevicePolicy::kHistBlockThreads;

// The gradient of a row as the exact sums take it.
__device__ __forceinline__ GradientSum AsSum(const GradientSum& p) { return p; }
__device__ __forceinline__ GradientSum AsSum(uint32_t packed) { return UnpackLowBit(packed); }

// Adds the non-zero sums `get(cell)` of a group's table to `hist` (global memory: a node's
// histogram), a cell a thread.
template <typename Get>
__device__ void FlushCells(const EllpackView& m, const FeatureGroup& group, uint32_t cells,
                           GradientSum* hist, Get get) {
  for (uint32_t i = threadIdx.x; i < cells; i += blockDim.x) {
    const GradientSum v = get(i);
    if (v.g == 0 && v.h == 0) continue;  // among them every cell past a feature's bins
    const uint32_t lane = i % group.lane_stride, local = i / group.lane_stride;
    const uint32_t first = m.shape.dense ? m.slot_base[group.slot_begin + lane]
                                         : m.feature_ptr[group.feature_begin + lane];
    AtomicAddSum(hist + first + local, v.g, v.h);
  }
}

// The exact shared sums of one group: four arrays of `cells` words (g low, g high, h low, h
// high), each the group's table of cells (FeatureGroup).
struct SharedSums {
  static constexpr uint32_t kWordsPerCell = 4;
  static constexpr uint32_t kFoldRows = 0xffffffffu;  // never folded
  uint32_t* words;
  uint32_t cells;
  template <typename Grad>
  __device__ void Add(uint32_t cell, const Grad& row) const {
    const GradientSum p = AsSum(row);
    SharedAdd64(words + cell, words + cells + cell, p.g);
    SharedAdd64(words + 2 * cells + cell, words + 3 * cells + cell, p.h);
  }
  __device__ int64_t Get(uint32_t array, uint32_t cell) const {
    const uint64_t lo = words[2 * array * cells + cell];
    const uint64_t hi = words[(2 * array + 1) * cells + cell];
    return static_cast<int64_t>(hi << 32 | lo);
  }
  __device__ void Zero() const {
    for (uint32_t i = threadIdx.x; i < kWordsPerCell * cells; i += blockDim.x) words[i] = 0;
  }
  __device__ void Fold() const {}
  // Adds the non-zero sums to `hist` (global memory: a node's histogram).
  __device__ void FlushTo(const EllpackView& m, const FeatureGroup& group,
                          GradientSum* hist) const {
    FlushCells(m, group, cells, hist, [&](uint32_t i) {
      return GradientSum{Get(0, i), Get(1, i)};
    });
  }
};

// Low-bit sums of one group (dense tiles of packed gradients): the packed cells (one 32-bit word a
// cell, PackLowBit, one atomic a row) and wide cells (g and h as int32, two arrays): Fold moves the
// packed cells into the wide ones, a cell a thread, before kFoldRows rows could overflow a packed
// half. A wide cell holds at most a block's rows of one node times kLevels (the builder runs this
// kernel only where a worker's rows cannot overflow it).
struct NarrowSums {
  static constexpr uint32_t kWordsPerCell = 3;
  static constexpr uint32_t kFoldRows = 32767 / LowBitPolicy::kLevels;
  uint32_t* words;
  uint32_t cells;
  __device__ void Add(uint32_t cell, uint32_t packed) const { atomicAdd(words + cell, packed); }
  __device__ GradientSum Get(uint32_t cell) const {
    const GradientSum p = UnpackLowBit(words[cell]);
    const auto* wide = reinterpret_cast<const int32_t*>(words + cells);
    return GradientSum{wide[cell] + p.g, wide[cells + cell] + p.h};
  }
  __device__ void Zero() const {
    for (uint32_t i = threadIdx.x; i < kWordsPerCell * cells; i += blockDim.x) words[i] = 0;
  }
  __device__ void Fold() const {
    auto* wide = reinterpret_cast<int32_t*>(words + cells);
    for (uint32_t i = threadIdx.x; i < cells; i += blockDim.x) {
      const uint32_t w = words[i];
      if (w == 0) continue;
      const GradientSum p = UnpackLowBit(w);
      wide[i] += static_cast<int32_t>(p.g);
      wide[cells + i] += static_cast<int32_t>(p.h);
      words[i] = 0;
    }
  }
  __device__ void FlushTo(const EllpackView& m, const FeatureGroup& group,
                          GradientSum* hist) const {
    FlushCells(m, group, cells, hist, [&](uint32_t i) { return Get(i); });
  }
};

// Visits every slot of the group in each of the task's rows: load(row, s, symbol) reads what the
// entry adds (s counts from the group's first slot), commit(loaded) adds it. A thread walks the
// flattened (row, slot) positions idx, idx + blockDim, ... two at a time (both loads in flight
// before the first add), keeping the pair (r, s) by additions (no division in the loop).
template <typename Load, typename Commit>
__device__ void ForEachSlot(const EllpackView& m, const HistBlockTask& task,
                            const FeatureGroup& group, Load load, Commit commit) {
  const uint32_t width = group.slot_end - group.slot_begin;
  if (width == 0) return;
  const uint64_t n_rows = task.end - task.begin;
  const uint32_t step_r = blockDim.x / width, step_s = blockDim.x % width;
  const auto advance = [&](uint64_t* r, uint32_t* s) {
    *r += step_r;
    *s += step_s;
    if (*s >= width) {
      *s -= width;
      ++*r;
    }
  };
  const auto entry = [&](uint64_t r, uint32_t s) {
    const uint64_t pos = task.begin + r;
    const uint32_t row = task.rows != nullptr ? task.rows[pos] : static_cast<uint32_t>(pos);
    return load(row, s, m.Symbol(row, group.slot_begin + s));
  };
  uint64_t r = threadIdx.x / width;
  uint32_t s = threadIdx.x % width;
  while (r < n_rows) {
    uint64_t r2 = r;
    uint32_t s2 = s;
    advance(&r2, &s2);
    const auto a = entry(r, s);
    if (r2 < n_rows) {
      const auto b = entry(r2, s2);
      commit(a);
      commit(b);
    } else {
      commit(a);
    }
    r = r2;
    s = s2;
    advance(&r, &s);
  }
}

// What one entry adds where (valid false: nothing, the entry is another group's).
struct PendingAdd {
  uint32_t at;
  bool valid;
  GradientSum value;
};

// The sums of output histogram `*current` go to global memory and the sums restart for `next`
// (a barrier before and after: every thread must have added, and none may add before the zeroing).
template <typename Sums>
__device__ void SwitchOutput(const EllpackView& m, const FeatureGroup& group, const Sums& sums,
                             GradientSum* out, uint32_t total_bins, uint32_t* current,
                             uint32_t next) {
  __syncthreads();
  sums.FlushTo(m, group, out + static_cast<uint64_t>(*current) * total_bins);
  __syncthreads();
  sums.Zero();
  __syncthreads();
  *current = next;
}

// The block's share of the tasks: [first, last).
struct TaskShare {
  uint64_t first, last;
  __device__ static TaskShare Of(uint64_t n_tasks) {
    return TaskShare{n_tasks * blockIdx.x / gridDim.x, n_tasks * (blockIdx.x + 1) / gridDim.x};
  }
};

// Shared-memory groups, entries gathered one by one from global memory (sparse data, or dense
// rows too wide for a tile): the block takes its tasks in order; the sums go to global memory
// whenever the output histogram changes and at the end.
template <typename Grad>
__global__ void __launch_bounds__(kThreads, DevicePolicy::kHistBlocksPerSM)
    GatherHistogramKernel(EllpackView m, const Grad* __restrict__ gpair, const HistBlockTask* tasks,
                          uint64_t n_tasks, const FeatureGroup* groups, uint32_t total_bins,
                          GradientSum* out) {
  extern __shared__ uint4 smem_aligned[];
  const FeatureGroup group = groups[blockIdx.y];
  const SharedSums sums{reinterpret_cast<uint32_t*>(smem_aligned), group.Cells()};
  const TaskShare share = TaskShare::Of(n_tasks);
  if (share.first == share.last) return;
  uint32_t current = tasks[share.first].out;
  sums.Zero();
  __syncthreads();
  // The cell of a slot's symbol: dense symbols are local bins of the slot's lane; sparse symbols
  // are global bins, of the group or not (then skipped).
  const uint32_t n_bins = group.bin_end - group.bin_begin;
  const auto load = [&](uint32_t row, uint32_t s, uint32_t symbol) {
    PendingAdd e{0, true, GradientSum{}};
    if (m.shape.dense) {
      e.at = symbol * group.lane_stride + s;
    } else if (symbol - group.bin_begin < n_bins) {  // unsigned: below the group wraps too
      const uint32_t f = m.bin_feature[symbol];
      e.at = (symbol - m.feature_ptr[f]) * group.lane_stride + (f - group.feature_begin);
    } else {
      e.valid = false;
      return e;
    }
    e.value = AsSum(gpair[row]);
    return e;
  };
  const auto commit = [&](const PendingAdd& e) {
    if (e.valid) sums.Add(e.at, e.value);
  };
  for (uint64_t t = share.first; t < share.last; ++t) {
    const HistBlockTask task = tasks[t];
    if (task.out != current) SwitchOutput(m, group, sums, out, total_bins, &current, task.out);
    ForEachSlot(m, task, group, load, commit);
  }
  __syncthreads();
  sums.FlushTo(m, group, out + static_cast<uint64_t>(current) * total_bins);
}

// Dense rows through shared memory. The block's tasks are cut into tiles of at most `tile_rows`
// rows, a tile buffer follows the sums. The block copies a tile's rows (their gradients and the
// symbols of the group's slots) into the buffer, a row a thread with all its loads in flight at
// once, then adds the tile's entries from shared memory, lanes over the flattened (row, slot)
// positions; the row ids of the next tile are loaded meanwhile. A gather straight from global
// memory waits on a chain of dependent loads (row id, symbol, gradient) for every entry; here a
// tile waits for its loads once. (Measured on an H100: double-buffered tiles filled by cp.async
// were slower, 4.3 against 3.3 ms a round under ncu.)
template <typename Grad>
struct TileBuffer {
  Grad* gpair;       // tile_rows
  uint8_t* symbols;  // tile_rows x row bytes
};

// A tile: rows [start, start + tile_rows) of task `task` (of the block's share).
struct TileRef {
  uint64_t task, start;
};

__device__ inline uint32_t RowsIn(const HistBlockTask& task, uint64_t start, uint32_t tile_rows) {
  const uint64_t left = task.end - task.begin - start;
  return static_cast<uint32_t>(left < tile_rows ? left : tile_rows);
}

// The tile after `ref`, false past the share's last (tasks are never empty).
__device__ inline bool NextTile(const HistBlockTask* tasks, uint64_t last, uint32_t tile_rows,
                                TileRef* ref) {
  ref->start += tile_rows;
  if (ref->start < tasks[ref->task].end - tasks[ref->task].begin) return true;
  ref->start = 0;
  return ++ref->task < last;
}

// This thread's row of the tile (a row id load; 0 past the tile's rows).
__device__ inline uint32_t TileRow(const HistBlockTask& task, uint64_t start, uint32_t tile_rows) {
  if (threadIdx.x >= RowsIn(task, start, tile_rows)) return 0;
  const uint64_t pos = task.begin + start + threadIdx.x;
  return task.rows != nullptr ? task.rows[pos] : static_cast<uint32_t>(pos);
}

// Copies n items from global to shared memory, kBatch loads in flight before their stores (a
// plain copy loop waits for each load before the next: the stores may alias in its eyes).
template <typename T>
__device__ __forceinline__ void CopyInFlight(const T* __restrict__ src, T* __restrict__ dst,
                                             uint32_t n) {
  constexpr uint32_t kBatch = 8;
  for (uint32_t i = 0; i < n; i += kBatch) {
    T v[kBatch];
#pragma unroll
    for (uint32_t j = 0; j < kBatch; ++j) {
      if (i + j < n) v[j] = __ldg(src + i + j);
    }
#pragma unroll
    for (uint32_t j = 0; j < kBatch; ++j) {
      if (i + j < n) dst[i + j] = v[j];
    }
  }
}

// Copies row `row` (its gradient and the symbols of the group's slots) to place `at` of the tile.
template <typename Grad>
__device__ void LoadTileRow(const EllpackView& m, const Grad* gpair, const FeatureGroup& group,
                            uint32_t row, uint32_t at, const TileBuffer<Grad>& buf) {
  const uint32_t bytes = m.shape.symbol_bytes;
  const uint32_t row_bytes = (group.slot_end - group.slot_begin) * bytes;
  const Grad g = gpair[row];  // in flight with the symbols
  const uint8_t* src =
      m.symbols + (static_cast<uint64_t>(row) * m.shape.row_stride + group.slot_begin) * bytes;
  uint8_t* dst = buf.symbols + at * row_bytes;
  if (((reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst) | row_bytes) & 3) ==
      0) {
    CopyInFlight(reinterpret_cast<const uint32_t*>(src), reinterpret_cast<uint32_t*>(dst),
                 row_bytes / 4);
  } else {
    CopyInFlight(src, dst, row_bytes);
  }
  buf.gpair[at] = g;
}

// Adds the n rows of a tile from shared memory: this thread takes the flattened (row, slot)
// positions first, first + stride, ... (the block's threads, or a warp's lanes).
template <typename Sums, typename Grad>
__device__ void AddTile(const EllpackView& m, const FeatureGroup& group,
                        const TileBuffer<Grad>& buf, uint32_t n, const Sums& sums, uint32_t first,
                        uint32_t stride) {
  const uint32_t width = group.slot_end - group.slot_begin;
  const uint32_t step_r = stride / width, step_s = stride % width;
  uint32_t r = first / width, s = first % width;
  const uint32_t total = n * width;
#pragma unroll 4
  for (uint32_t idx = first; idx < total; idx += stride) {
    const uint32_t symbol = m.shape.symbol_bytes == 1
                                ? buf.symbols[idx]
                                : reinterpret_cast<const uint16_t*>(buf.symbols)[idx];
    sums.Add(symbol * group.lane_stride + s, buf.gpair[r]);
    r += step_r;
    s += step_s;
    if (s >= width) {
      s -= width;
      ++r;
    }
  }
}

// What a tiled kernel's block works with: its group, the group's shared sums, its share of the
// tasks and the tile buffer after the sums of the widest group (16-byte aligned): tile_rows
// gradients, then their rows of the group's symbols.
template <typename Sums, typename Grad>
struct TiledBlock {
  FeatureGroup group;
  Sums sums;
  TaskShare share;
  Grad* tile_gpair;
  uint8_t* tile_symbols;
  uint32_t row_bytes;  // a row's symbols of the group's slots

  __device__ TiledBlock(const EllpackView& m, const FeatureGroup* groups, uint64_t n_tasks,
                        uint32_t max_cells, uint32_t tile_rows)
      : group(groups[blockIdx.y]), share(TaskShare::Of(n_tasks)) {
    extern __shared__ uint4 smem_aligned[];
    auto* smem = reinterpret_cast<uint32_t*>(smem_aligned);
    sums = Sums{smem, group.Cells()};
    tile_gpair = reinterpret_cast<Grad*>(smem + (Sums::kWordsPerCell * max_cells + 3) / 4 * 4);
    tile_symbols = reinterpret_cast<uint8_t*>(tile_gpair + tile_rows);
    row_bytes = (group.slot_end - group.slot_begin) * m.shape.symbol_bytes;
  }
  __device__ bool Idle() const {
    return share.first == share.last || group.slot_end == group.slot_begin;
  }
  // The tile from place `first` on.
  __device__ TileBuffer<Grad> From(uint32_t first) const {
    return TileBuffer<Grad>{tile_gpair + first, tile_symbols + first * row_bytes};
  }
};

// Sums: SharedSums (exact) or NarrowSums (packed low-bit gradients), Grad the gradient of a row.
// (Measured on an H100, paired: the narrow sums as two blocks of 512 threads an SM, tiles of 512
// rows, made the low-bit round 1.08x slower than one block of 1024: 5.75 against 5.30 ms.)
template <typename Sums, typename Grad>
__global__ void __launch_bounds__(kThreads, DevicePolicy::kHistBlocksPerSM)
    TiledHistogramKernel(EllpackView m, const Grad* __restrict__ gpair, const HistBlockTask* tasks,
                         uint64_t n_tasks, const FeatureGroup* groups, uint32_t total_bins,
                         GradientSum* out, uint32_t max_cells, uint32_t tile_rows) {
  const TiledBlock<Sums, Grad> b(m, groups, n_tasks, max_cells, tile_rows);
  if (b.Idle()) return;
  const FeatureGroup& group = b.group;
  const Sums& sums = b.sums;
  const TaskShare& share = b.share;
  const TileBuffer<Grad> buf = b.From(0);
  uint32_t current = tasks[share.first].out;
  uint64_t unfolded = 0;  // rows added since the sums were last folded (or zeroed)
  sums.Zero();
  TileRef at{share.first, 0};
  uint32_t row = TileRow(tasks[at.task], 0, tile_rows);
  for (bool more = true; more;) {
    const HistBlockTask task = tasks[at.task];
    const uint32_t n = RowsIn(task, at.start, tile_rows);
    if (threadIdx.x < n) LoadTileRow(m, gpair, group, row, threadIdx.x, buf);
    TileRef next = at;
    more = NextTile(tasks, share.last, tile_rows, &next);
    if (more) row = TileRow(tasks[next.task], next.start, tile_rows);  // used after the adds
    __syncthreads();
    // Every thread takes the same branches (task, n and unfolded are the block's).
    if (task.out != current) {
      SwitchOutput(m, group, sums, out, total_bins, &current, task.out);
      unfolded = 0;
    }
    if (unfolded + n > Sums::kFoldRows) {
      sums.Fold();
      __syncthreads();
      unfolded = 0;
    }
    AddTile(m, group, buf, n, sums, threadIdx.x, blockDim.x);
    unfolded += n;
    __syncthreads();  // the buffer is refilled next
    at = next;
  }
  sums.FlushTo(m, group, out + static_cast<uint64_t>(current) * total_bins);
}

// The same sums with the tiles cut among the warps (HistTiles::kWarp): each warp loads 32 rows of
// the task into its own part of the tile buffer and adds them, between warp barriers; the block
// waits only where the output changes or the sums fold (its threads take the same tasks, so they
// agree on both). Needs a tile of a row a thread (tile_rows == blockDim.x).
template <typename Sums, typename Grad>
__global__ void __launch_bounds__(kThreads, DevicePolicy::kHistBlocksPerSM)
    WarpTiledHistogramKernel(EllpackView m, const Grad* __restrict__ gpair,
                             const HistBlockTask* tasks, uint64_t n_tasks,
                             const FeatureGroup* groups, uint32_t total_bins, GradientSum* out,
                             uint32_t max_cells, uint32_t tile_rows) {
  constexpr uint32_t kWarpRows = 32;
  const TiledBlock<Sums, Grad> b(m, groups, n_tasks, max_cells, tile_rows);
  if (b.Idle()) return;
  const FeatureGroup& group = b.group;
  const Sums& sums = b.sums;
  const TaskShare& share = b.share;
  // This warp's rows are the tile's 32 places from warp * 32 (gradients and symbols alike).
  const uint32_t warp = threadIdx.x / kWarpRows, lane = threadIdx.x % kWarpRows;
  const TileBuffer<Grad> buf = b.From(warp * kWarpRows);
  uint32_t current = tasks[share.first].out;
  uint64_t unfolded = 0;  // rows added since the sums were last folded (or zeroed)
  sums.Zero();
  __syncthreads();
  for (uint64_t t = share.first; t < share.last; ++t) {
    const HistBlockTask task = tasks[t];
    const uint64_t n_rows = task.end - task.begin;
    if (task.out != current) {
      SwitchOutput(m, group, sums, out, total_bins, &current, task.out);
      unfolded = 0;
    }
    if (unfolded + n_rows > Sums::kFoldRows) {
      __syncthreads();
      sums.Fold();
      __syncthreads();
      unfolded = 0;
    }
    for (uint64_t start = warp * kWarpRows; start < n_rows; start += blockDim.x) {
      const uint32_t n = static_cast<uint32_t>(
          n_rows - start < kWarpRows ? n_rows - start : static_cast<uint64_t>(kWarpRows));
      if (lane < n) {
        const uint64_t pos = task.begin + start + lane;
        const uint32_t row = task.rows != nullptr ? task.rows[pos] : static_cast<uint32_t>(pos);
        LoadTileRow(m, gpair, group, row, lane, buf);
      }
      __syncwarp();
      AddTile(m, group, buf, n, sums, lane, kWarpRows);
      __syncwarp();  // the warp's buffer is refilled next
    }
    unfolded += n_rows;
  }
  __syncthreads();
  sums.FlushTo(m, group, out + static_cast<uint64_t>(current) * total_bins);
}

// Groups too wide for shared memory: one task a block, straight into global memory.
template <typename Grad>
__global__ void GlobalHistogramKernel(EllpackView m, const Grad* gpair, const HistBlockTask* tasks,
                                      const FeatureGroup* groups, uint32_t total_bins,
                                      GradientSum* out) {
  const HistBlockTask task = tasks[blockIdx.x];
  const FeatureGroup group = groups[blockIdx.y];
  GradientSum* hist = out + static_cast<uint64_t>(task.out) * total_bins;
  const auto load = [&](uint32_t row, uint32_t s, uint32_t symbol) {
    const uint32_t bin = m.shape.dense ? m.slot_base[group.slot_begin + s] + symbol : symbol;
    // Another group's bin, or null: nothing.
    if (bin < group.bin_begin || bin >= group.bin_end) return PendingAdd{0, false, GradientSum{}};
    return PendingAdd{bin, true, AsSum(gpair[row])};
  };
  ForEachSlot(m, task, group, load, [&](const PendingAdd& e) {
    if (e.valid) AtomicAddSum(hist + e.at, e.value.g, e.value.h);
  });
}

}  // namespace hist_kernels
}  // namespace ringboost
