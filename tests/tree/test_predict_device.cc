// Prediction for task=pred device=cuda: the kernel's row walk run on the host, and the kernel,
// against PredictMargin (the CPU reference), bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "common/error.h"
#include "model/model.h"
#include "tree/gpu_hist/device_test_helpers.h"
#include "tree/hist/grower.h"
#include "tree/predict_device.h"

namespace ringboost {
namespace {

// A model of 3 rounds x 2 groups grown on `b` (different gradients per tree), depth 4.
Model GrowModel(const test::BinnedData& b) {
  Params p;
  p.max_depth = 4;
  auto comm = rabit::MakeLocalCommunicator();
  Model m;
  m.num_groups = 2;
  m.num_feature = b.cuts.NumFeatures();
  m.base_margin = 0.25f;
  for (int round = 0; round < 3; ++round) {
    for (int group = 0; group < 2; ++group) {
      std::vector<GradPair> g = b.grads;
      for (std::size_t i = 0; i < g.size(); ++i) {
        g[i].grad *= (i % (2 + round + group) == 0) ? -1.0f : 1.0f;
        g[i].hess += 0.5f;
      }
      GradientQuantizer q(g, 1, 0, comm.get());
      TreeGrower grower(b.matrix.get(), &b.cuts, TreeParams::From(p, 0.0f), comm.get(), 2);
      m.trees.push_back(grower.Grow(q.QuantizeAll(g, 1, 0, {}, 2), q, round * 2 + group));
      m.tree_group.push_back(group);
    }
    ++m.num_rounds;
  }
  return m;
}

// The walk over each row spread into a dense table (as the kernel's shared-memory path reads it)
// gives the margins of the CSR walk.
void ExpectDenseWalkEqualsCsrWalk(const Model& m, const DataSet& d, const char* name) {
  const FlatForest f = FlattenForest(m, m.trees.size());
  ForestView forest = f.View();
  forest.num_feature = m.num_feature;
  forest.num_groups = m.num_groups;
  const CsrView csr{d.row_ptr.data(), d.index.data(), d.value.data()};
  for (uint64_t r = 0; r < d.NumRows(); ++r) {
    std::vector<float> table(m.num_feature, NAN);
    for (uint64_t k = d.row_ptr[r]; k < d.row_ptr[r + 1]; ++k) {
      if (d.index[k] < m.num_feature) table[d.index[k]] = d.value[k];
    }
    std::vector<float> dense(m.num_groups, 0.0f), sparse(m.num_groups, 0.0f);
    PredictRowWith(forest, DenseRow{table.data(), 1}, dense.data());
    PredictRow(forest, csr, r, sparse.data());
    ASSERT_EQ(std::memcmp(dense.data(), sparse.data(), dense.size() * sizeof(float)), 0)
        << name << " row " << r;
  }
}

void ExpectSameBits(const std::vector<float>& a, const std::vector<float>& b, const char* name) {
  ASSERT_EQ(a.size(), b.size()) << name;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << name;
}

// The kernel's paths: a dense table for up to 80 features (more rows than one block, a last
// block of fewer), a CSR search for wider rows.
std::vector<test::ShapeSpec> PredictShapes() {
  return {{"dense", 800, 6, 50, 0.0, 32},
          {"sparse", 800, 8, 50, 0.5, 32},
          {"one_row", 1, 3, 5, 0.0, 16},
          {"all_missing", 40, 3, 5, 1.0, 16},
          {"wide", 300, 90, 8, 0.3, 16}};
}

// Two rounds of one group on 3 features; tree 0 splits feature 1 on the codes {1, 3, 7} (right;
// missing left) and then feature 0 at 0.5, tree 1 feature 2 on the codes {0, 2^24 - 1} (missing
// right). Rows: feature 1 takes every code the decision tells apart (in and out of the set,
// fractional, negative, from 2^24 on, absent).
Model CategoricalModel() {
  Model m;
  m.num_groups = 1;
  m.num_feature = 3;
  m.base_margin = 0.5f;
  RegTree a;
  const int al = a.SplitCategorical(0, 1, {1, 3, 7}, true, 1.0f);
  const int all = a.Split(al, 0, 0.5f, false, 0.5f);
  a[all].leaf_value = -0.25f;
  a[all + 1].leaf_value = 0.125f;
  a[al + 1].leaf_value = 1.5f;
  RegTree b;
  const int bl = b.SplitCategorical(0, 2, {0, (1u << 24) - 1}, false, 1.0f);
  b[bl].leaf_value = -2.0f;
  b[bl + 1].leaf_value = 3.0f;
  m.trees = {a, b};
  m.tree_group = {0, 0};
  m.num_rounds = 2;
  return m;
}

DataSet CategoricalRows() {
  const float codes[] = {0.0f, 1.0f, 3.0f, 3.7f, 7.0f, 8.0f, -1.0f, -0.5f, 16777216.0f, 1e30f};
  DataSet d;
  for (float code : codes) {
    for (float x0 : {0.0f, 1.0f}) {
      for (float x2 : {0.0f, 16777215.0f, 5.0f}) {
        d.index.insert(d.index.end(), {0, 1, 2});
        d.value.insert(d.value.end(), {x0, code, x2});
        d.row_ptr.push_back(d.index.size());
      }
    }
  }
  d.index.push_back(0);  // a row without features 1 and 2
  d.value.push_back(1.0f);
  d.row_ptr.push_back(d.index.size());
  d.label.assign(d.NumRows(), 0.0f);
  d.num_col = 3;
  return d;
}

TEST(DevicePredict, HostWalkEqualsPredictMargin) {
  for (const test::ShapeSpec& s : PredictShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const Model m = GrowModel(b);
    if (s.rows > 1 && s.missing < 1.0) EXPECT_GT(m.trees[0].NumNodes(), 7) << s.name;
    for (int rounds : {0, 1, 3}) {
      ExpectSameBits(PredictMarginReference(m, b.data, rounds), PredictMargin(m, b.data, rounds, 2),
                     s.name);
    }
    ExpectDenseWalkEqualsCsrWalk(m, b.data, s.name);
  }
}

TEST(DevicePredict, HostWalkOfCategoricalSplitsEqualsPredictMargin) {
  const Model m = CategoricalModel();
  const DataSet d = CategoricalRows();
  const std::vector<float> cpu = PredictMargin(m, d, 0, 2);
  // Row 6k + 3i + j: code k, x0 = {0, 1}[i], x2 = {0, 2^24 - 1, 5}[j]. Codes 1, 3, 3.7 and 7 go
  // right in tree 0; the row without features 1 and 2 goes left there and right in tree 1.
  EXPECT_EQ(cpu[1 * 6], 0.5f + 1.5f + 3.0f);        // code 1, x2 = 0
  EXPECT_EQ(cpu[3 * 6 + 5], 0.5f + 1.5f - 2.0f);    // code 3.7, x2 = 5
  EXPECT_EQ(cpu[6 * 6 + 1], 0.5f - 0.25f + 3.0f);   // code -1, x0 = 0, x2 = 2^24 - 1
  EXPECT_EQ(cpu[8 * 6 + 3], 0.5f + 0.125f + 3.0f);  // code 2^24, x0 = 1, x2 = 0
  EXPECT_EQ(cpu.back(), 0.5f + 0.125f + 3.0f);
  ExpectSameBits(PredictMarginReference(m, d, 0), cpu, "categorical");
  ExpectSameBits(PredictMarginReference(m, d, 1), PredictMargin(m, d, 1, 2), "categorical");
  ExpectDenseWalkEqualsCsrWalk(m, d, "categorical");
}

TEST(DevicePredict, RoundsOutOfRangeIsAnError) {
  const test::BinnedData b = test::MakeBinnedData(PredictShapes()[2]);
  const Model m = GrowModel(b);
  EXPECT_EQ(TreesForRounds(m, 0), 6u);
  EXPECT_EQ(TreesForRounds(m, 2), 4u);
  EXPECT_THROW(TreesForRounds(m, 4), Error);
  EXPECT_THROW(TreesForRounds(m, -1), Error);
}

TEST(DevicePredict, KernelEqualsPredictMargin) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::ShapeSpec& s : PredictShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const Model m = GrowModel(b);
    for (int rounds : {0, 2}) {
      ExpectSameBits(PredictMarginOnDevice(m, b.data, rounds), PredictMargin(m, b.data, rounds, 2),
                     s.name);
    }
  }
  const Model cat = CategoricalModel();
  const DataSet rows = CategoricalRows();
  ExpectSameBits(PredictMarginOnDevice(cat, rows, 0), PredictMargin(cat, rows, 0, 2),
                 "categorical");
#endif
}

}  // namespace
}  // namespace ringboost
