// The tree grower's test fixture (tests/tree/hist/test_grower*.cc): a data set's cuts and binned
// matrix, and a tree grown from its labels' squared-error gradients in each of the grower's ways.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "tree/hist/grower.h"
#include "tree/tree_builders.h"

namespace ringboost {
namespace test {

struct GrowerFixture {
  DataSet data;
  HistogramCuts cuts;
  std::unique_ptr<BinnedMatrix> matrix;
  std::unique_ptr<rabit::Communicator> comm = rabit::MakeLocalCommunicator();
  TreeConstraints constraints;  // of every tree Grow grows

  // bundle: the matrix bundles the features (enable_bundle=true, max_conflict_rate 0);
  // by_column: a sparse matrix is built by column (BinnedMatrix::Build).
  explicit GrowerFixture(DataSet d, int nthread = 2, bool bundle = false, bool by_column = false)
      : data(std::move(d)) {
    cuts = ComputeCuts(data, data.num_col, 256, comm.get(), nthread);
    const FeatureBundles bundles =
        bundle ? DecideBundles(data, cuts, {"true", 0.0}, comm.get(), nthread) : FeatureBundles{};
    matrix = std::make_unique<BinnedMatrix>(
        BinnedMatrix::Build(data, cuts, nthread, &bundles, by_column));
    matrix->BuildColumns(nthread);
  }

  // How the grower finds splits: histograms per node (subtraction), the wide way (one node at a
  // time, no subtraction) by rows, or the wide way by columns where it serves (sparse, 1 worker).
  enum class Mode { kNormal, kWideRows, kWideColumns };

  // Squared error at margin 0: g = -y, h = 1.
  // low_bit: the tree's structure from low-bit gradients (quantized_grad=on), as HistTrainer.
  // refit: the low-bit tree's leaves refit from the exact gradients (TreeGrower::RefitLeaves)
  // before the prediction cache is updated.
  RegTree Grow(const Params& p, int nthread = 2, std::vector<float>* preds = nullptr,
               Mode mode = Mode::kNormal, const std::vector<uint8_t>& keep = {},
               bool low_bit = false, bool refit = false) {
    std::vector<GradPair> g;
    for (float y : data.label) g.push_back(GradPair{-y, 1.0f});
    GradientQuantizer q(g, 1, 0, comm.get());
    TreeGrower grower(matrix.get(), &cuts, TreeParams::From(p, 0.0f), comm.get(), nthread, low_bit);
    if (mode != Mode::kNormal) grower.SetWideHistogramBytes(0);
    grower.SetColumnwise(mode == Mode::kWideColumns);
    grower.SetConstraints(constraints);
    if (low_bit) {
      const GradientQuantizer low = q.LowBit();
      std::vector<GradientSum> low_grad;
      const GradientSum sum = low.QuantizeAllLowBit(g, 1, 0, keep, 7, 0, 0, nthread, &low_grad);
      RegTree tree = grower.Grow(low_grad, sum, low, 0);
      if (refit) grower.RefitLeaves(g, 1, 0, keep, q, &tree);
      if (preds != nullptr) grower.UpdatePredictions(tree, preds, 1, 0);
      return tree;
    }
    RegTree tree = grower.Grow(q.QuantizeAll(g, 1, 0, keep, nthread), q, 0);
    if (preds != nullptr) grower.UpdatePredictions(tree, preds, 1, 0);
    return tree;
  }
};

// n rows of `features` features, each present with probability 3/4, its value in [0, range) (a
// 64-bit LCG seeded with `seed`); the label adds +-(f % 7 + 1) for each present feature f with
// f % 13 == 5, + where its value is above range / 2.
inline DataSet SignalRows(int n, int features, uint64_t range, uint64_t seed) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  uint64_t s = seed;
  for (int i = 0; i < n; ++i) {
    std::vector<float> r;
    float y = 0;
    for (int f = 0; f < features; ++f) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      const uint64_t v = (s >> 33) % range;
      const bool present = (s >> 20) % 4 != 0;
      r.push_back(present ? static_cast<float>(v) : NAN);
      if (present && f % 13 == 5)
        y += (2 * v > range ? 1.0f : -1.0f) * static_cast<float>(f % 7 + 1);
    }
    rows.push_back(r);
    labels.push_back(y);
  }
  return DenseRows(rows, labels);
}

}  // namespace test
}  // namespace ringboost
