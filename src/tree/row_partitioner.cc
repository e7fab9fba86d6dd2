#include "tree/row_partitioner.h"

#include <algorithm>
#include <numeric>

#include "common/error.h"

namespace ringboost {
namespace {
constexpr uint64_t kPartitionBlock = 8192;  // rows per parallel partition task
}

RowPartitioner::RowPartitioner(uint64_t num_rows) : rows_(num_rows), scratch_(num_rows) {
  RB_CHECK_MSG(num_rows < (uint64_t{1} << 32), "too many rows for one worker: " << num_rows);
  std::iota(rows_.begin(), rows_.end(), 0u);
  ranges_.push_back(Range{0, num_rows});
}

void RowPartitioner::EnsureNode(int nid) {
  if (static_cast<std::size_t>(nid) >= ranges_.size()) ranges_.resize(nid + 1);
}

void RowPartitioner::Partition(const std::vector<SplitTask>& tasks,
                               const std::function<bool(std::size_t, uint32_t)>& goes_left,
                               int nthread) {
  // Blocks: (task, begin, end). Each block counts its left rows, then writes left rows to
  // scratch from the node's start and right rows from the node's split point, at offsets given by
  // an exclusive scan over the node's blocks: a stable partition.
  struct Block {
    std::size_t task;
    uint64_t begin, end;
    uint64_t n_left = 0, left_offset = 0, right_offset = 0;
  };
  std::vector<Block> blocks;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const Range r = ranges_[tasks[t].nid];
    for (uint64_t b = r.begin; b < r.end; b += kPartitionBlock) {
      blocks.push_back(Block{t, b, std::min(r.end, b + kPartitionBlock)});
    }
  }
  std::vector<uint8_t> side(rows_.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthread)
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    Block& blk = blocks[i];
    uint64_t n_left = 0;
    for (uint64_t j = blk.begin; j < blk.end; ++j) {
      bool left = goes_left(blk.task, rows_[j]);
      side[j] = left;
      n_left += left;
    }
    blk.n_left = n_left;
  }
  // Exclusive scans per task.
  std::vector<uint64_t> task_left(tasks.size(), 0);
  for (const Block& blk : blocks) task_left[blk.task] += blk.n_left;
  std::vector<uint64_t> next_left(tasks.size()), next_right(tasks.size());
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    next_left[t] = ranges_[tasks[t].nid].begin;
    next_right[t] = next_left[t] + task_left[t];
  }
  for (Block& blk : blocks) {
    blk.left_offset = next_left[blk.task];
    blk.right_offset = next_right[blk.task];
    next_left[blk.task] += blk.n_left;
    next_right[blk.task] += (blk.end - blk.begin) - blk.n_left;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthread)
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Block& blk = blocks[i];
    uint64_t l = blk.left_offset, r = blk.right_offset;
    for (uint64_t j = blk.begin; j < blk.end; ++j) {
      if (side[j]) {
        scratch_[l++] = rows_[j];
      } else {
        scratch_[r++] = rows_[j];
      }
    }
  }
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const Range r = ranges_[tasks[t].nid];
    std::copy(scratch_.begin() + r.begin, scratch_.begin() + r.end, rows_.begin() + r.begin);
    EnsureNode(std::max(tasks[t].left, tasks[t].right));
    ranges_[tasks[t].left] = Range{r.begin, r.begin + task_left[t]};
    ranges_[tasks[t].right] = Range{r.begin + task_left[t], r.end};
  }
}

}  // namespace ringboost
