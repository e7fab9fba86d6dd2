// Prediction on the device (task=pred device=cuda) and the training prediction cache update.
//
// The trees become one flat array of nodes; a thread walks one row through every tree in tree
// order and adds the leaf values in float, as PredictMargin does, so the margins are the same
// bits. Rows stay in CSR form (raw values): a node's feature is found by a binary search of the
// row's ascending feature ids, absent = missing.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "data/data.h"
#include "tree/gpu_hist/common.h"
#include "tree/predict.h"

namespace ringboost {

struct FlatNode {
  int32_t left;  // -1: leaf
  int32_t right;
  uint32_t feature;
  float split_cond;  // value < split_cond goes left
  float leaf_value;
  uint8_t default_left;
};

// The first `num_trees` trees of a model, flattened: tree t's nodes start at tree_begin[t].
struct FlatForest {
  std::vector<FlatNode> nodes;
  std::vector<uint32_t> tree_begin;
  std::vector<int32_t> tree_group;
};
FlatForest FlattenForest(const Model& model, std::size_t num_trees);

// What the prediction kernel reads (device pointers there, host pointers in the reference).
struct ForestView {
  const FlatNode* nodes;
  const uint32_t* tree_begin;
  const int32_t* tree_group;
  uint32_t num_trees;
  uint32_t num_feature;
  int32_t num_groups;
  float base_margin;
};
struct CsrView {
  const uint64_t* row_ptr;
  const uint32_t* index;
  const float* value;
};

// Value of `feature` in row `row`, or NaN when absent.
RB_HOST_DEVICE inline float RowValue(const CsrView& data, uint64_t row, uint32_t feature) {
  uint64_t lo = data.row_ptr[row], hi = data.row_ptr[row + 1];
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (data.index[mid] < feature) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo < data.row_ptr[row + 1] && data.index[lo] == feature) return data.value[lo];
  return NAN;
}

// Adds every tree's leaf value of row `row` to out[0 .. num_groups) (out starts at base_margin),
// walking each tree from the root (the leaves of TreeWalker).
RB_HOST_DEVICE inline void PredictRow(const ForestView& forest, const CsrView& data, uint64_t row,
                                      float* out) {
  for (uint32_t t = 0; t < forest.num_trees; ++t) {
    const FlatNode* tree = forest.nodes + forest.tree_begin[t];
    int32_t nid = 0;
    while (tree[nid].left >= 0) {
      const FlatNode& n = tree[nid];
      const float v = n.feature < forest.num_feature ? RowValue(data, row, n.feature) : NAN;
      if (v != v) {  // NaN: missing
        nid = n.default_left ? n.left : n.right;
      } else {
        nid = v < n.split_cond ? n.left : n.right;
      }
    }
    out[forest.tree_group[t]] += tree[nid].leaf_value;
  }
}

// CPU reference of the kernel: PredictRow for every row, on the host.
std::vector<float> PredictMarginReference(const Model& model, const DataSet& data, int num_rounds);

#ifdef RINGBOOST_USE_CUDA
// PredictMargin on the device (rows x num_groups). Checks the device memory it needs first.
std::vector<float> PredictMarginOnDevice(const Model& model, const DataSet& data, int num_rounds);
#endif  // RINGBOOST_USE_CUDA

}  // namespace ringboost
