// PredictMargin: the model's raw output for every row, summed as XGBoost sums it.
//
// Each thread takes whole blocks of rows and owns a dense float buffer of one row (NaN =
// missing), filled from the CSR before the row and reset after it, so the cost per row is its
// stored entries, not num_feature. A row's margin starts at base_margin and adds the leaf value
// of each tree in tree order, in float, as XGBoost's CPU predictor does; the result does not
// depend on the thread count because no sum crosses rows.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "model/model.h"

namespace ringboost {
namespace {

constexpr uint64_t kRowBlock = 64;  // rows per scheduling unit

// Adds the first `num_trees` trees' leaf values to the margins of rows [begin, end).
void PredictBlock(const Model& model, const DataSet& data, size_t num_trees, uint64_t begin,
                  uint64_t end, std::vector<float>* row, float* margins) {
  const uint32_t num_feature = model.num_feature;
  const int num_groups = model.num_groups;
  for (uint64_t r = begin; r < end; ++r) {
    const uint64_t lo = data.row_ptr[r];
    const uint64_t hi = data.row_ptr[r + 1];
    for (uint64_t k = lo; k < hi; ++k) {
      // Features the model never saw cannot be split on: leave them out of the buffer.
      if (data.index[k] < num_feature) (*row)[data.index[k]] = data.value[k];
    }
    float* out = margins + r * num_groups;
    for (size_t t = 0; t < num_trees; ++t) {
      const RegTree& tree = model.trees[t];
      out[model.tree_group[t]] += tree[tree.GetLeaf(row->data(), num_feature)].leaf_value;
    }
    for (uint64_t k = lo; k < hi; ++k) {
      if (data.index[k] < num_feature) (*row)[data.index[k]] = std::nanf("");
    }
  }
}

}  // namespace

std::size_t TreesForRounds(const Model& model, int num_rounds) {
  if (num_rounds < 0 || num_rounds > model.num_rounds) {
    RB_FAIL("cannot predict with " << num_rounds << " rounds: the model has " << model.num_rounds
                                   << " (use 0 for all, or a number up to " << model.num_rounds
                                   << ")");
  }
  RB_CHECK(model.num_groups >= 1);
  RB_CHECK(model.tree_group.size() == model.trees.size());
  const int rounds = num_rounds == 0 ? model.num_rounds : num_rounds;
  return std::min(model.trees.size(), static_cast<std::size_t>(rounds) * model.num_groups);
}

std::vector<float> PredictMargin(const Model& model, const DataSet& data, int num_rounds,
                                 int nthread) {
  const size_t num_trees = TreesForRounds(model, num_rounds);
  for (size_t t = 0; t < num_trees; ++t) {
    RB_CHECK(model.tree_group[t] >= 0 && model.tree_group[t] < model.num_groups);
  }
  const uint64_t num_rows = data.NumRows();
  std::vector<float> margins(num_rows * model.num_groups, model.base_margin);
  const int64_t num_blocks = static_cast<int64_t>((num_rows + kRowBlock - 1) / kRowBlock);
  const int threads = nthread > 0 ? nthread : omp_get_num_procs();
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> row(model.num_feature, std::numeric_limits<float>::quiet_NaN());
#pragma omp for schedule(static)
    for (int64_t b = 0; b < num_blocks; ++b) {
      const uint64_t begin = static_cast<uint64_t>(b) * kRowBlock;
      const uint64_t end = std::min(num_rows, begin + kRowBlock);
      PredictBlock(model, data, num_trees, begin, end, &row, margins.data());
    }
  }
  return margins;
}

}  // namespace ringboost
