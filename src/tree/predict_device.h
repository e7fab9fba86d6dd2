// Prediction on the device (task=pred device=cuda) and the training prediction cache update.
//
// The trees become one flat array of nodes; a thread walks one row through every tree in tree
// order and adds the leaf values in float, as PredictMargin does, so the margins are the same
// bits. Rows come in CSR form (raw values). Where the model has few enough features, a block
// first spreads its rows into a dense table in shared memory (absent = NaN) and the walk reads a
// node's feature there; otherwise a node's feature is found by a binary search of the row's
// ascending feature ids, absent = missing. A categorical split's codes are a slice of one
// ascending array (FlatForest::categories), searched as InCategories does.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "data/data.h"
#include "tree/gpu_hist/common.h"
#include "tree/predict.h"

namespace ringboost {

struct ForestView;

struct FlatNode {
  int32_t left;  // -1: leaf
  int32_t right;
  uint32_t feature;
  float split_cond;  // value < split_cond goes left
  float leaf_value;
  uint8_t default_left;
  uint8_t is_cat;  // a categorical split: its codes are categories[cat_ptr[i] .. cat_ptr[i + 1])
};

// The first `num_trees` trees of a model, flattened: tree t's nodes start at tree_begin[t].
// cat_ptr (one more entry than nodes) and categories stay empty when no split is categorical.
struct FlatForest {
  std::vector<FlatNode> nodes;
  std::vector<uint32_t> tree_begin;
  std::vector<int32_t> tree_group;
  std::vector<uint32_t> cat_ptr;
  std::vector<uint32_t> categories;
  // Its view on the host (num_feature, num_groups and base_margin left 0 for the caller).
  ForestView View() const;
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
  const uint32_t* cat_ptr = nullptr;  // null: no categorical split
  const uint32_t* categories = nullptr;
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

// A row's values for the walk: the CSR row, a feature found by binary search.
struct CsrRow {
  const CsrView* data;
  uint64_t row;
  RB_HOST_DEVICE float operator()(uint32_t feature) const { return RowValue(*data, row, feature); }
};

// A row's values spread into a dense table: feature f at values[f * stride] (NaN: missing).
struct DenseRow {
  const float* values;
  uint32_t stride;
  RB_HOST_DEVICE float operator()(uint32_t feature) const { return values[feature * stride]; }
};

// Whether the present value `v` goes left at categorical node `node` (a global index): left unless
// its code is one of the node's categories, as InCategories decides (negative codes and codes from
// kMaxCategory on go left).
RB_HOST_DEVICE inline bool CategoricalGoesLeft(const ForestView& forest, uint32_t node, float v) {
  if (!(v >= 0.0f) || v >= static_cast<float>(kMaxCategory)) return true;
  const uint32_t code = static_cast<uint32_t>(v);
  uint32_t lo = forest.cat_ptr[node], hi = forest.cat_ptr[node + 1];
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (forest.categories[mid] < code) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return !(lo < forest.cat_ptr[node + 1] && forest.categories[lo] == code);
}

// Adds every tree's leaf value of one row to out[0 .. num_groups) (out starts at base_margin),
// walking each tree from the root (the leaves of TreeWalker); value_of(feature) is the row's
// value, NaN when missing (CsrRow or DenseRow).
template <typename ValueOf>
RB_HOST_DEVICE inline void PredictRowWith(const ForestView& forest, const ValueOf& value_of,
                                          float* out) {
  for (uint32_t t = 0; t < forest.num_trees; ++t) {
    const uint32_t begin = forest.tree_begin[t];
    const FlatNode* tree = forest.nodes + begin;
    int32_t nid = 0;
    while (tree[nid].left >= 0) {
      const FlatNode& n = tree[nid];
      const float v = n.feature < forest.num_feature ? value_of(n.feature) : NAN;
      if (v != v) {  // NaN: missing
        nid = n.default_left ? n.left : n.right;
      } else if (n.is_cat) {
        nid = CategoricalGoesLeft(forest, begin + nid, v) ? n.left : n.right;
      } else {
        nid = v < n.split_cond ? n.left : n.right;
      }
    }
    out[forest.tree_group[t]] += tree[nid].leaf_value;
  }
}

// PredictRowWith for row `row` of `data`.
RB_HOST_DEVICE inline void PredictRow(const ForestView& forest, const CsrView& data, uint64_t row,
                                      float* out) {
  PredictRowWith(forest, CsrRow{&data, row}, out);
}

// CPU reference of the kernel: PredictRow for every row, on the host.
std::vector<float> PredictMarginReference(const Model& model, const DataSet& data, int num_rounds);

#ifdef RINGBOOST_USE_CUDA
// PredictMargin on the device (rows x num_groups). Checks the device memory it needs first.
std::vector<float> PredictMarginOnDevice(const Model& model, const DataSet& data, int num_rounds);
#endif  // RINGBOOST_USE_CUDA

}  // namespace ringboost
