#include "tree/hist/row_partitioner.h"

#include <algorithm>

#include "common/error.h"

namespace ringboost {
namespace {
constexpr uint64_t kPartitionBlock = 8192;  // rows per parallel partition task
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
    const uint32_t* src = buffers_[from].data();
    uint32_t* dst = buffers_[1 - from].data();
    uint64_t l = blk.left_offset, r = blk.right_offset;
    for (uint64_t j = blk.begin; j < blk.end; ++j) {  // branch-free: the side is a coin flip
      const uint64_t left = side_[j];
      dst[left ? l : r] = src[j];
      l += left;
      r += 1 - left;
    }
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
