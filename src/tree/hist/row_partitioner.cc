#include "tree/hist/row_partitioner.h"

#include <algorithm>
#include <array>
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "common/error.h"

namespace ringboost {
namespace {
constexpr uint64_t kPartitionBlock = 8192;  // rows per parallel partition task

// A row a step, branch-free (the side is a coin flip).
void ScatterRowsBaseline(const uint8_t* side, const uint32_t* src, uint64_t n, uint32_t* left,
                         uint32_t* right) {
  uint64_t l = 0, r = 0;
  for (uint64_t j = 0; j < n; ++j) {
    const uint64_t go_left = side[j];
    (go_left ? left[l] : right[r]) = src[j];
    l += go_left;
    r += 1 - go_left;
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// For each 8-bit mask, the positions of its set bits in ascending order, a byte each (the rest
// zero): the lanes a permutation moves to the front.
constexpr std::array<uint64_t, 256> MakeCompressTable() {
  std::array<uint64_t, 256> table{};
  for (unsigned m = 0; m < 256; ++m) {
    uint64_t lanes = 0;
    int k = 0;
    for (unsigned b = 0; b < 8; ++b) {
      if (m >> b & 1) lanes |= static_cast<uint64_t>(b) << (8 * k++);
    }
    table[m] = lanes;
  }
  return table;
}
constexpr std::array<uint64_t, 256> kCompress = MakeCompressTable();

// out[at, at + count) = the first `count` lanes of v, with `room` places in out: a whole store
// while 8 lanes fit.
__attribute__((target("avx2"))) inline void PutLanes(uint32_t* out, uint64_t at, uint64_t room,
                                                     __m256i v, int count) {
  if (at + 8 <= room) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + at), v);
    return;
  }
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
  std::memcpy(out + at, lanes, count * sizeof(uint32_t));
}

// Eight rows a step: their sides as a mask, each side's rows moved to the front of a vector by
// one permutation and stored whole at that side's next place (the lanes past its count are
// written again by the next step), or only its count where fewer than 8 places are left on that
// side, so that nothing past the block's range is written.
__attribute__((target("avx2,popcnt"))) void ScatterRowsAvx2(const uint8_t* side,
                                                            const uint32_t* src, uint64_t n,
                                                            uint64_t n_left, uint32_t* left,
                                                            uint32_t* right) {
  const uint64_t n_right = n - n_left;
  uint64_t j = 0, l = 0, r = 0;
  for (; j + 8 <= n; j += 8) {
    // Sides are 0 or 1: shifted to each byte's top bit, gathered into a mask.
    const unsigned m = static_cast<unsigned>(_mm_movemask_epi8(_mm_slli_epi64(
                           _mm_loadl_epi64(reinterpret_cast<const __m128i*>(side + j)), 7))) &
                       0xffu;
    const __m256i rows = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + j));
    const __m256i to_left =
        _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(kCompress[m])));
    const __m256i to_right =
        _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(kCompress[m ^ 0xffu])));
    const int c = __builtin_popcount(m);
    PutLanes(left, l, n_left, _mm256_permutevar8x32_epi32(rows, to_left), c);
    PutLanes(right, r, n_right, _mm256_permutevar8x32_epi32(rows, to_right), 8 - c);
    l += c;
    r += 8 - c;
  }
  ScatterRowsBaseline(side + j, src + j, n - j, left + l, right + r);
}
#endif
}  // namespace

void RowPartitioner::ScatterRows(const uint8_t* side, const uint32_t* src, uint64_t n,
                                 uint64_t n_left, uint32_t* left, uint32_t* right, bool vector) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  if (vector && avx2) return ScatterRowsAvx2(side, src, n, n_left, left, right);
#endif
  (void)vector;
  (void)n_left;
  ScatterRowsBaseline(side, src, n, left, right);
}

RowPartitioner::RowPartitioner(uint64_t num_rows) {
  RB_CHECK_MSG(num_rows < (uint64_t{1} << 32), "too many rows for one worker: " << num_rows);
  buffers_[0].resize(num_rows);
  buffers_[1].resize(num_rows);
  Reset(1);
}

void RowPartitioner::Reset(int nthread) {
  uint32_t* rows = buffers_[0].data();
  const int64_t n = static_cast<int64_t>(buffers_[0].size());
#pragma omp parallel for schedule(static) num_threads(nthread)
  for (int64_t i = 0; i < n; ++i) rows[i] = static_cast<uint32_t>(i);
  ranges_.assign(1, Range{0, static_cast<uint64_t>(n)});
  where_.assign(1, 0);
}

void RowPartitioner::EnsureNode(int nid) {
  if (static_cast<std::size_t>(nid) >= ranges_.size()) {
    ranges_.resize(nid + 1);
    where_.resize(nid + 1, 0);
  }
}

void RowPartitioner::MakeBlocks(const std::vector<SplitTask>& tasks) {
  // Blocks: (task, begin, end). Each block counts its left rows, then writes left rows to
  // scratch from the node's start and right rows from the node's split point, at offsets given by
  // an exclusive scan over the node's blocks: a stable partition.
  blocks_.clear();
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const Range r = ranges_[tasks[t].nid];
    for (uint64_t b = r.begin; b < r.end; b += kPartitionBlock) {
      blocks_.push_back(Block{t, b, std::min(r.end, b + kPartitionBlock)});
    }
  }
  if (side_.size() != buffers_[0].size()) side_.resize(buffers_[0].size());
}

void RowPartitioner::Scatter(const std::vector<SplitTask>& tasks, int nthread) {
  std::vector<uint64_t> task_left(tasks.size(), 0);
  for (const Block& blk : blocks_) task_left[blk.task] += blk.n_left;
  std::vector<uint64_t> next_left(tasks.size()), next_right(tasks.size());
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    next_left[t] = ranges_[tasks[t].nid].begin;
    next_right[t] = next_left[t] + task_left[t];
  }
  for (Block& blk : blocks_) {
    blk.left_offset = next_left[blk.task];
    blk.right_offset = next_right[blk.task];
    next_left[blk.task] += blk.n_left;
    next_right[blk.task] += (blk.end - blk.begin) - blk.n_left;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthread)
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    const Block& blk = blocks_[i];
    const int from = where_[tasks[blk.task].nid];
    uint32_t* dst = buffers_[1 - from].data();
    ScatterRows(side_.data() + blk.begin, buffers_[from].data() + blk.begin, blk.end - blk.begin,
                blk.n_left, dst + blk.left_offset, dst + blk.right_offset);
  }
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const Range r = ranges_[tasks[t].nid];
    const uint8_t to = 1 - where_[tasks[t].nid];
    EnsureNode(std::max(tasks[t].left, tasks[t].right));
    ranges_[tasks[t].left] = Range{r.begin, r.begin + task_left[t]};
    ranges_[tasks[t].right] = Range{r.begin + task_left[t], r.end};
    where_[tasks[t].left] = to;
    where_[tasks[t].right] = to;
  }
}

}  // namespace ringboost
