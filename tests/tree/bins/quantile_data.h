// Small data sets for the cut and binning tests of tests/tree.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "data/data.h"

namespace ringboost::test {

// A data set from rows: rows[i] lists row i's (feature, value) pairs, ids ascending.
inline DataSet MakeData(const std::vector<std::vector<std::pair<uint32_t, float>>>& rows,
                        std::vector<float> weight = {}) {
  DataSet d;
  for (const auto& row : rows) {
    for (const auto& [f, v] : row) {
      d.index.push_back(f);
      d.value.push_back(v);
      d.num_col = std::max(d.num_col, f + 1);
    }
    d.row_ptr.push_back(d.index.size());
    d.label.push_back(0.0f);
  }
  d.weight = std::move(weight);
  return d;
}

inline DataSet MakeRows(const std::vector<std::vector<std::pair<uint32_t, float>>>& rows) {
  return MakeData(rows);
}

// `rows` rows, 3 features: 0 dense with a few hundred distinct values (rounded normal),
// 1 dense with 7 values, 2 sparse (30%) and nearly all distinct. Weights are multiples of .02
// (zero included) when `weighted`.
inline DataSet RandomData(uint32_t seed, bool weighted, int rows = 3000) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<std::vector<std::pair<uint32_t, float>>> data(rows);
  std::vector<float> weight;
  for (auto& row : data) {
    row.push_back({0u, std::round(normal(rng) * 10.0f) / 10.0f});
    row.push_back({1u, static_cast<float>(static_cast<int>(unit(rng) * 7))});
    if (unit(rng) < 0.3f) row.push_back({2u, normal(rng)});
    if (weighted) weight.push_back(std::round(unit(rng) * 100.0f) / 50.0f);
  }
  return MakeData(data, weight);
}

}  // namespace ringboost::test
