// Sparse feature ids (issue 24, item 7): the learner trains on the features the data holds, so
// one id 2147483646 costs no per-id memory, and the trees come out as if the ids were dense.
#include <gtest/gtest.h>

#include <cmath>

#include "../tree/tree_builders.h"
#include "learner/columns.h"
#include "learner/learner.h"

namespace ringboost {
namespace {

// 400 rows of 4 features; the label follows features 0, 1 and 3.
DataSet Rows(uint32_t id_of_feature3) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  uint64_t s = 7;
  auto next = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<float>((s >> 33) % 10000) / 10000.0f;
  };
  for (int i = 0; i < 400; ++i) {
    std::vector<float> r{next(), next(), next(), next()};
    labels.push_back(r[0] + r[1] * r[3] > 0.7f ? 1.f : 0.f);
    rows.push_back(r);
  }
  DataSet data = test::DenseRows(rows, labels);
  for (uint32_t& f : data.index) {
    if (f == 3) f = id_of_feature3;
  }
  data.num_col = id_of_feature3 + 1;
  return data;
}

Model Train(const DataSet& train, const DataSet& eval) {
  auto comm = rabit::MakeLocalCommunicator();
  Params p;
  p.objective = "binary:logistic";
  p.eval_metric = {"logloss"};
  p.max_depth = 3;
  p.nthread = 2;
  Learner learner(p, comm.get());
  std::vector<std::pair<std::string, DataSet>> evals;
  evals.emplace_back("test", eval);
  learner.Setup(train, std::move(evals), nullptr);
  for (int i = 0; i < 4; ++i) learner.UpdateOneRound();
  return learner.model();
}

TEST(ColumnMap, DenseIdsAreLeftAlone) {
  auto comm = rabit::MakeLocalCommunicator();
  EXPECT_FALSE(ColumnMap::Agree(Rows(3), 4, comm.get()).active());
  // Many absent ids, but few enough columns: used as they are.
  EXPECT_FALSE(ColumnMap::Agree(Rows(1000000), 1000001, comm.get()).active());
}

TEST(ColumnMap, RenumbersHeldFeaturesAndDropsOthers) {
  auto comm = rabit::MakeLocalCommunicator();
  const ColumnMap map = ColumnMap::Agree(Rows(2147483646), 2147483647, comm.get());
  ASSERT_TRUE(map.active());
  EXPECT_EQ(map.NumColumns(), 4u);
  DataSet eval;
  eval.index = {0, 5, 2147483646};  // 5 is not held by the training data: dropped
  eval.value = {1.f, 2.f, 3.f};
  eval.row_ptr = {0, 2, 3};
  eval.label = {0.f, 1.f};
  map.Renumber(&eval);
  EXPECT_EQ(eval.index, (std::vector<uint32_t>{0, 3}));
  EXPECT_EQ(eval.value, (std::vector<float>{1.f, 3.f}));
  EXPECT_EQ(eval.row_ptr, (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_EQ(eval.num_col, 4u);
}

// The id 2147483646 would cost gigabytes of per-feature state; renumbered it trains the trees of
// the same data with that feature at id 3, but for the id in the splits.
TEST(ColumnMap, SparseIdTrainsTheTreesOfDenseIds) {
  const Model dense = Train(Rows(3), Rows(3));
  const Model sparse = Train(Rows(2147483646), Rows(2147483646));
  EXPECT_EQ(dense.num_feature, 4u);
  EXPECT_EQ(sparse.num_feature, 2147483647u);
  ASSERT_EQ(sparse.trees.size(), dense.trees.size());
  int splits_on_3 = 0;
  for (std::size_t t = 0; t < dense.trees.size(); ++t) {
    const auto& a = dense.trees[t].nodes();
    const auto& b = sparse.trees[t].nodes();
    ASSERT_EQ(a.size(), b.size()) << "tree " << t;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].left, b[i].left);
      EXPECT_EQ(a[i].leaf_value, b[i].leaf_value);
      EXPECT_EQ(a[i].split_cond, b[i].split_cond);
      if (a[i].IsLeaf()) continue;
      splits_on_3 += a[i].feature == 3;
      EXPECT_EQ(b[i].feature, a[i].feature == 3 ? 2147483646u : a[i].feature);
    }
  }
  EXPECT_GT(splits_on_3, 0);
  // Predictions of the saved model read the data's ids.
  EXPECT_EQ(PredictMargin(sparse, Rows(2147483646), 0, 2), PredictMargin(dense, Rows(3), 0, 2));
}

}  // namespace
}  // namespace ringboost
