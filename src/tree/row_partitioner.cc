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
  if (side_.size() != rows_.size()) side_.resize(rows_.size());
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
    uint64_t l = blk.left_offset, r = blk.right_offset;
    for (uint64_t j = blk.begin; j < blk.end; ++j) {
      if (side_[j]) {
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
