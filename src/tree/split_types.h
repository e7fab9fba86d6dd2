// The types both tree methods (hist/ on the CPU, gpu_hist/ on the GPU) and node_book share: a
// node's histogram, a node's range of row ids, a split candidate and what evaluating a node reads.
// They sit on the floor so that neither method includes the other's headers.
#pragma once

#include <cstdint>
#include <vector>

#include "tree/constraints.h"
#include "tree/gradient.h"

namespace ringboost {

using Histogram = std::vector<GradientSum>;  // one entry per global bin

// The rows of a node: positions [begin, end) of its partitioner's row-id buffer.
struct RowRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t size() const { return end - begin; }
};

struct SplitCandidate {
  float loss_chg = 0.0f;
  uint32_t feature = 0;
  int32_t split_bin = 0;  // local bin: rows with bin <= split_bin go left (-1: none)
  float split_cond = 0.0f;
  bool default_left = false;
  // A categorical split (categorical_split.h): rows of these category codes (ascending) go
  // right, rows of the feature's other codes left; split_bin is unused.
  bool is_cat = false;
  std::vector<uint32_t> categories;
  GradientSum left_sum;
  GradientSum right_sum;
  bool found = false;

  // XGBoost's SplitEntry::NeedReplace.
  bool NeedReplace(float new_loss_chg, uint32_t new_feature) const {
    if (!found) return new_loss_chg > loss_chg;
    if (feature <= new_feature) return new_loss_chg > loss_chg;
    return !(loss_chg > new_loss_chg);
  }
  void Update(const SplitCandidate& c) {
    if (c.found && NeedReplace(c.loss_chg, c.feature)) *this = c;
  }
};

// What evaluation needs of a node.
struct NodeToEvaluate {
  const Histogram* hist;
  GradientSum sum;                        // the node's total, missing values included
  float gain;                             // its own gain (CalcGain of sum)
  const std::vector<uint32_t>* features;  // features allowed (column sampling), ascending
  // Optional: per chunk of 2^chunk_shift bins, 0 when every bin in it is empty (skipped).
  const uint8_t* touched = nullptr;
  uint32_t chunk_shift = 0;
  WeightBounds bounds;  // monotone constraints: the box of its children's weights
};

}  // namespace ringboost
