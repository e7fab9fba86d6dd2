// Trees grown by several workers (real tcp workers on threads, each with a share of the rows)
// equal one process's, in the normal and the wide way (the wide way reduces only the chunks some
// worker touched), with the level's histograms allreduced or reduce-scattered (hist_sync).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "rabit/communicator.h"
#include "rabit/tracker_thread.h"
#include "tree/hist/grower.h"
#include "tree/tree_builders.h"

namespace ringboost {
namespace {

// Sparse rows (about 40% missing) over 8 features, with a label that depends on three of them.
void MakeRows(int n, std::vector<std::vector<float>>* rows, std::vector<float>* labels) {
  uint64_t s = 7;
  auto next = [&s] { return (s = s * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  for (int i = 0; i < n; ++i) {
    std::vector<float> r;
    for (int f = 0; f < 8; ++f) {
      const float v = static_cast<float>(next() % 500) / 10.0f;
      r.push_back(next() % 5 < 2 ? NAN : v);
    }
    labels->push_back((std::isnan(r[1]) ? 2.0f : r[1] * 0.1f) + (r[5] > 25 ? 3.0f : 0.0f) -
                      (std::isnan(r[6]) ? 0.0f : 1.0f));
    rows->push_back(r);
  }
}

// Squared error at margin 0 over `data` with `comm`: cuts, bins, quantizer and tree all agreed
// over comm's workers.
RegTree GrowTree(const DataSet& data, uint32_t num_col, rabit::Communicator* comm, bool wide,
                 const char* hist_sync = "allreduce") {
  HistogramCuts cuts = ComputeCuts(data, num_col, 64, comm, 1);
  BinnedMatrix matrix = BinnedMatrix::Build(data, cuts, 1);
  matrix.BuildColumns(1);
  std::vector<GradPair> g;
  for (float y : data.label) g.push_back(GradPair{-y, 1.0f});
  GradientQuantizer q(g, 1, 0, comm, 1);
  Params p;
  p.max_depth = 5;
  p.hist_sync = hist_sync;
  TreeGrower grower(&matrix, &cuts, TreeParams::From(p, 0.0f), comm, 1);
  if (wide) grower.SetWideHistogramBytes(0);
  return grower.Grow(q.QuantizeAll(g, 1, 0, {}, 1), q, 0);
}

class GrowerWorkers : public ::testing::TestWithParam<int> {};

// 3 workers, and 9 for 8 features (a worker owns no feature under reduce_scatter).
TEST_P(GrowerWorkers, GrowTheOneProcessTreeInEveryWay) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  MakeRows(3000, &rows, &labels);
  const DataSet all = test::DenseRows(rows, labels);
  auto local = rabit::MakeLocalCommunicator();
  const RegTree expected = GrowTree(all, all.num_col, local.get(), false);
  ASSERT_GT(expected.NumNodes(), 15);
  const int n = GetParam();
  std::vector<std::size_t> bounds{0, 400, 1900};  // uneven shares
  for (int r = 3; r < n; ++r) bounds.push_back(1900 + (r - 2) * 1100 / (n - 2));
  bounds.push_back(rows.size());
  rabit::test::TrackerThread tracker(n);
  const auto errors = rabit::test::RunWorkers(&tracker, n, {}, [&](rabit::Communicator* comm) {
    const int r = comm->Rank();
    const std::vector<std::vector<float>> mine(rows.begin() + bounds[r],
                                               rows.begin() + bounds[r + 1]);
    const std::vector<float> my_labels(labels.begin() + bounds[r], labels.begin() + bounds[r + 1]);
    const DataSet share = test::DenseRows(mine, my_labels);
    for (bool wide : {false, true}) {
      const RegTree tree = GrowTree(share, all.num_col, comm, wide);
      test::ExpectSameTree(expected, tree,
                           std::string(wide ? "wide" : "normal") + " rank " + std::to_string(r));
    }
    test::ExpectSameTree(expected, GrowTree(share, all.num_col, comm, false, "reduce_scatter"),
                         "reduce_scatter rank " + std::to_string(r));
    return std::string();
  });
  for (const std::string& e : errors) EXPECT_EQ(e, "");
}

INSTANTIATE_TEST_SUITE_P(Workers, GrowerWorkers, ::testing::Values(3, 9));

}  // namespace
}  // namespace ringboost
