// Shared pieces of the device tests (tests/tree/gpu_hist/test_*.cc,
// tests/tree/test_predict_device.cc): the skip macro (require_device.h) and data sets of many
// shapes, each with its cuts, binned matrix and quantized gradients.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "rabit/communicator.h"
#include "require_device.h"
#include "tree/bins/binned_matrix.h"
#include "tree/bins/quantile.h"
#include "tree/gpu_hist/common.h"
#include "tree/gradient.h"

namespace ringboost::test {

// What a data set shape is made of.
struct ShapeSpec {
  const char* name;
  uint32_t rows;
  uint32_t features;
  uint32_t distinct;  // distinct values per feature (1: a single bin)
  double missing;     // chance of an entry being absent (0: dense layout)
  int max_bin;
  uint32_t seed = 1;
};

// A data set with its cuts, binned matrix and quantized gradients.
struct BinnedData {
  DataSet data;
  HistogramCuts cuts;
  std::unique_ptr<BinnedMatrix> matrix;
  std::vector<GradPair> grads;
  GradientQuantizer quantizer;
  std::vector<GradientSum> gpair;
};

// With `is_cat` (one entry a feature, or empty), the features marked there are categorical: their
// values are the codes 0 .. distinct - 1, binned a bin per code (ApplyCategories).
inline BinnedData MakeBinnedData(const ShapeSpec& s, const std::vector<uint8_t>& is_cat = {}) {
  BinnedData b;
  std::mt19937 rng(s.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (uint32_t i = 0; i < s.rows; ++i) {
    for (uint32_t f = 0; f < s.features; ++f) {
      if (s.missing > 0 && unit(rng) < s.missing) continue;
      b.data.index.push_back(f);
      // distinct == rows: every row its own value (a permutation of the rows), so that the
      // feature gets exactly `rows` bins.
      const uint32_t v = s.distinct == s.rows
                             ? static_cast<uint32_t>((uint64_t{i} * 7919 + f) % s.rows)
                             : static_cast<uint32_t>(rng() % s.distinct);
      const bool cat = f < is_cat.size() && is_cat[f] != 0;
      b.data.value.push_back(cat ? static_cast<float>(v) : static_cast<float>(v) * 0.5f - 3.0f);
    }
    b.data.row_ptr.push_back(b.data.index.size());
    b.data.label.push_back(0.0f);
    b.grads.push_back(
        GradPair{static_cast<float>(unit(rng) * 2.0 - 1.0), static_cast<float>(unit(rng) * 0.25)});
  }
  b.data.num_col = s.features;
  auto comm = rabit::MakeLocalCommunicator();
  b.cuts = ComputeCuts(b.data, s.features, s.max_bin, comm.get(), 2);
  if (!is_cat.empty()) ApplyCategories(b.data, is_cat, comm.get(), &b.cuts);
  b.matrix = std::make_unique<BinnedMatrix>(BinnedMatrix::Build(b.data, b.cuts, 2));
  b.matrix->BuildColumns(2);
  b.quantizer = GradientQuantizer(b.grads, 1, 0, comm.get());
  b.gpair = b.quantizer.QuantizeAll(b.grads, 1, 0, {}, 2);
  return b;
}

// The shapes every kernel is tested over.
inline std::vector<ShapeSpec> KernelShapes() {
  return {
      {"one_row", 1, 4, 10, 0.0, 256},           {"dense_small", 700, 5, 40, 0.0, 16},
      {"sparse_small", 900, 6, 60, 0.4, 32},     {"all_missing", 50, 3, 5, 1.0, 16},
      {"one_bin", 300, 2, 1, 0.0, 256},          {"one_bin_sparse", 300, 3, 1, 0.5, 256},
      {"many_features", 400, 300, 70, 0.0, 64},  {"many_features_sparse", 400, 300, 70, 0.9, 64},
      {"uint16_bins", 2000, 3, 1000, 0.0, 1000},
  };
}

// A shape whose features `is_cat` marks are categorical (MakeBinnedData's second argument).
struct CategoricalShape {
  ShapeSpec shape;
  std::vector<uint8_t> is_cat;
};

// Shapes with categorical features: few categories (3, one-hot splits under the default
// max_cat_to_onehot of 4) and many (partition splits), dense and with missing values, bins of one
// byte and of two (300 categories).
inline std::vector<CategoricalShape> CategoricalShapes() {
  return {
      {{"cat_dense_few", 800, 4, 3, 0.0, 64, 11}, {1, 0, 1, 0}},
      {{"cat_dense_many", 1000, 5, 40, 0.0, 64, 12}, {0, 1, 0, 1, 0}},
      {{"cat_sparse_few", 600, 4, 3, 0.4, 32, 13}, {1, 0, 0, 1}},
      {{"cat_sparse_many", 900, 6, 60, 0.3, 32, 14}, {1, 1, 0, 0, 1, 0}},
      {{"cat_dense_wide", 2000, 3, 300, 0.0, 256, 15}, {1, 0, 0}},
  };
}

// One feature of 65,535 bins (65,535 distinct values) beside a small one.
inline ShapeSpec WideBinsShape() { return {"bins_65535", 65535, 2, 65535, 0.0, 65535, 3}; }

// KernelShapes() and WideBinsShape().
inline std::vector<ShapeSpec> AllKernelShapes() {
  std::vector<ShapeSpec> shapes = KernelShapes();
  shapes.push_back(WideBinsShape());
  return shapes;
}

}  // namespace ringboost::test
