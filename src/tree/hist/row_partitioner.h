// Row sets of the nodes of the tree being grown (DESIGN.md step 8): every node owns a contiguous
// range of local row ids. Splitting a node partitions its range stably (left rows first, each
// side in its original order), so the layout does not depend on the number of threads and a
// node's rows ascend (the root's are 0..n-1). Two buffers take turns: a split reads the node's
// buffer and writes its children into the other one, so nothing is copied back (and a split
// node's rows are overwritten when its children are split: leaves and the nodes not yet split
// keep theirs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "tree/split_types.h"

namespace ringboost {

class RowPartitioner {
 public:
  // All rows in the root (node 0), in order.
  explicit RowPartitioner(uint64_t num_rows);
  // All rows back in the root, in order, as a new partitioner has them; the buffers' storage is
  // kept (a new one per tree allocated, zeroed and freed 8 MB at 1M rows: 1.7 ms of a round on
  // the bench's dense set, against 0.55).
  void Reset(int nthread);

  using Range = RowRange;
  const Range& NodeRange(int nid) const { return ranges_[nid]; }
  const uint32_t* NodeRows(int nid) const {
    return buffers_[where_[nid]].data() + ranges_[nid].begin;
  }
  // The rows of `nid` within [rows.begin, rows.end): a stretch of NodeRows(nid) (they ascend),
  // its first row and its length.
  std::pair<const uint32_t*, uint64_t> NodeRowsIn(int nid, RowRange rows) const {
    const uint32_t* first = NodeRows(nid);
    const uint32_t* last = first + ranges_[nid].size();
    first = std::lower_bound(first, last, rows.begin);
    return {first, static_cast<uint64_t>(std::lower_bound(first, last, rows.end) - first)};
  }
  // Rows src[0, n) whose side[j] is 1 (n_left of them) to left[0, n_left) and the rest to
  // right[0, n - n_left), each in order: one block's scatter. Writes nothing else. `vector`:
  // 8 rows a step by AVX2 permutations where the CPU has AVX2 (else, or false: a row a step).
  static void ScatterRows(const uint8_t* side, const uint32_t* src, uint64_t n, uint64_t n_left,
                          uint32_t* left, uint32_t* right, bool vector = true);

  // Thread t's share of rows 0..num_rows-1 of `threads` for work that writes by row: equal
  // shares starting at multiples of 64 rows, so that threads share no cache line of a byte or
  // float per row but at their edges (with NodeRowsIn, each thread writes only its own rows).
  static RowRange ThreadRows(uint64_t num_rows, int t, int threads) {
    const auto edge = [&](uint64_t i) {
      constexpr uint64_t kAlign = 64;
      return i == static_cast<uint64_t>(threads)
                 ? num_rows
                 : std::min(num_rows, num_rows * i / threads / kAlign * kAlign);
    };
    return RowRange{edge(t), edge(t + 1)};
  }

  // One split to apply: rows of `nid` for which goes_left(row) is true move to `left`, the rest
  // to `right`.
  struct SplitTask {
    int nid;
    int left;
    int right;
  };
  // Applies every split of one level at once; goes_left(task index, row) decides. Parallel over
  // row blocks of all the tasks.
  template <typename GoesLeft>
  void Partition(const std::vector<SplitTask>& tasks, const GoesLeft& goes_left, int nthread) {
    PartitionBlocks(
        tasks,
        [&goes_left](std::size_t task, const uint32_t* rows, uint64_t n, uint8_t* side) {
          uint64_t n_left = 0;
          for (uint64_t j = 0; j < n; ++j) {
            const bool left = goes_left(task, rows[j]);
            side[j] = left;
            n_left += left;
          }
          return n_left;
        },
        nthread);
  }
  // The same, deciding a block of a task's rows per call: decide(task index, rows, n, side) sets
  // side[j] to 1 where rows[j] goes left and to 0 where it goes right, and returns the number
  // that go left. A caller that decides a whole block keeps its split's fields in registers
  // (side is bytes, which may alias anything a per-row call would read) and can read ahead.
  template <typename Decide>
  void PartitionBlocks(const std::vector<SplitTask>& tasks, const Decide& decide, int nthread) {
    MakeBlocks(tasks);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthread)
    for (std::size_t i = 0; i < blocks_.size(); ++i) {
      Block& blk = blocks_[i];
      const uint32_t* src = buffers_[where_[tasks[blk.task].nid]].data();
      blk.n_left = decide(blk.task, src + blk.begin, blk.end - blk.begin, side_.data() + blk.begin);
    }
    Scatter(tasks, nthread);
  }

 private:
  struct Block {
    std::size_t task;
    uint64_t begin, end;
    uint64_t n_left = 0, left_offset = 0, right_offset = 0;
  };
  void MakeBlocks(const std::vector<SplitTask>& tasks);
  // Moves rows to their side (stable) and records the children's ranges.
  void Scatter(const std::vector<SplitTask>& tasks, int nthread);
  void EnsureNode(int nid);
  std::vector<uint32_t> buffers_[2];
  std::vector<uint8_t> where_;  // per node: the buffer holding its rows
  std::vector<uint8_t> side_;   // per position: 1 = goes left
  std::vector<Block> blocks_;
  std::vector<Range> ranges_;
};

}  // namespace ringboost
