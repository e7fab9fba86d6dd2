// monotone_constraints and interaction_constraints (issue 30) keep their promises on real and
// generated data, through the CLI: predictions move with each constrained feature in its
// direction along a grid, for many rows; no root-to-leaf path mixes features of different sets.
// Each promise is also shown broken without the constraint, so the checks can fail; monotone ones
// hold with low-bit gradients too. Models are the same bytes for any threads and workers; bad
// values are refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "data/data.h"
#include "helpers.h"
#include "model/model.h"
#include "tree/predict.h"

namespace ringboost {
namespace {

struct DataCase {
  const char* name;
  const char* objective;
  const char* growth;  // extra config lines
};

void PrintTo(const DataCase& c, std::ostream* os) { *os << c.name; }

// The training file of a case: the shared Higgs sample, or generated rows with 20% missing.
std::string TrainFile(const test::TempDir& dir, const std::string& name) {
  if (name.rfind("higgs", 0) == 0) return test::SharedDataDir() + "/lightgbm/binary.train";
  return test::WriteGeneratedSparse(dir.File("sparse.txt"), 3000, 8, 0.2);
}

Model Train(const test::TempDir& dir, const std::string& data, const DataCase& c,
            const std::string& keys, const std::string& out) {
  test::WriteFile(dir.File("c.conf"), std::string("objective = ") + c.objective + "\n" + c.growth +
                                          "num_round = 12\neta = 0.3\ndata = \"" + data + "\"\n");
  const test::RunResult r =
      test::RunRingboost(dir.path(), "train c.conf model_out=" + out + " " + keys);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return Model::Load(dir.File(out));
}

// `rows` rows of `data` (every k-th), each repeated with feature `f` set to each of `grid`.
DataSet GridRows(const DataSet& data, uint32_t f, const std::vector<float>& grid, int rows) {
  DataSet out;
  out.num_col = data.num_col;
  const uint64_t step = data.NumRows() / rows;
  for (int i = 0; i < rows; ++i) {
    const uint64_t r = i * step;
    for (float v : grid) {
      for (uint64_t k = data.row_ptr[r]; k < data.row_ptr[r + 1]; ++k) {
        if (data.index[k] == f) continue;
        out.index.push_back(data.index[k]);
        out.value.push_back(data.value[k]);
      }
      out.index.push_back(f);
      out.value.push_back(v);
      // ids ascending within the row: f moves to its place
      const uint64_t begin = out.row_ptr.back();
      for (uint64_t k = out.index.size() - 1; k > begin && out.index[k - 1] > f; --k) {
        std::swap(out.index[k], out.index[k - 1]);
        std::swap(out.value[k], out.value[k - 1]);
      }
      out.row_ptr.push_back(out.index.size());
      out.label.push_back(0.0f);
    }
  }
  return out;
}

// The number of steps along the grids where a margin (of any output group) moves against
// direction `c`.
int Violations(const Model& model, const DataSet& data, uint32_t f, int c) {
  float lo = INFINITY, hi = -INFINITY;
  for (std::size_t k = 0; k < data.index.size(); ++k) {
    if (data.index[k] == f) lo = std::min(lo, data.value[k]), hi = std::max(hi, data.value[k]);
  }
  std::vector<float> grid;
  for (int g = 0; g <= 40; ++g) grid.push_back(lo + (hi - lo) * g / 40.0f);
  constexpr int kRows = 100;
  const std::vector<float> margin = PredictMargin(model, GridRows(data, f, grid, kRows), 0, 2);
  const std::size_t groups = static_cast<std::size_t>(model.num_groups);
  int violations = 0;
  for (int i = 0; i < kRows; ++i) {
    for (std::size_t g = 1; g < grid.size(); ++g) {
      for (std::size_t k = 0; k < groups; ++k) {
        const float before = margin[(i * grid.size() + g - 1) * groups + k];
        const float after = margin[(i * grid.size() + g) * groups + k];
        violations += c > 0 ? after < before : after > before;
      }
    }
  }
  return violations;
}

class Monotone : public ::testing::TestWithParam<DataCase> {};

TEST_P(Monotone, PredictionsFollowEachConstrainedFeatureOnAGrid) {
  const DataCase& c = GetParam();
  if (std::string(c.name).rfind("higgs", 0) == 0) RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  const std::string file = TrainFile(dir, c.name);
  const DataSet data = LoadData(file, LoadOptions{});
  // Higgs: m_bb (25) up, m_wwbb (27) down, lepton pT (0) up; generated: 0 up, 1 and 3 down.
  const bool higgs = std::string(c.name).rfind("higgs", 0) == 0;
  const std::vector<std::pair<uint32_t, int>> constrained =
      higgs ? std::vector<std::pair<uint32_t, int>>{{25, 1}, {27, -1}, {0, 1}}
            : std::vector<std::pair<uint32_t, int>>{{0, 1}, {1, -1}, {3, -1}};
  std::string value = "(";
  for (uint32_t f = 0; f < data.num_col; ++f) {
    int v = 0;
    for (const auto& [cf, cv] : constrained) v = cf == f ? cv : v;
    value += (f ? "," : "") + std::to_string(v);
  }
  value += ")";
  const Model free = Train(dir, file, c, "", "free.json");
  const Model bound = Train(dir, file, c, "'monotone_constraints=" + value + "'", "bound.json");
  int free_violations = 0;
  for (const auto& [f, v] : constrained) {
    EXPECT_EQ(Violations(bound, data, f, v), 0) << "feature " << f;
    free_violations += Violations(free, data, f, v);
  }
  EXPECT_GT(free_violations, 0) << "the grids cannot tell a constrained model from a free one";
}

INSTANTIATE_TEST_SUITE_P(
    Data, Monotone,
    ::testing::Values(DataCase{"higgs_depthwise", "binary:logistic", "max_depth = 6\n"},
                      DataCase{"higgs_lossguide", "binary:logistic",
                               "grow_policy = lossguide\nmax_depth = 0\nmax_leaves = 24\n"},
                      DataCase{"missing_depthwise", "reg:squarederror", "max_depth = 5\n"},
                      DataCase{"missing_lossguide", "binary:logistic",
                               "grow_policy = lossguide\nmax_leaves = 16\n"},
                      // Low-bit gradients: the leaves refit from the exact sums keep the order.
                      DataCase{"higgs_depthwise_lowbit", "binary:logistic",
                               "max_depth = 6\nquantized_grad = on\n"},
                      DataCase{"missing_depthwise_lowbit", "reg:squarederror",
                               "max_depth = 5\nquantized_grad = on\n"},
                      DataCase{"missing_lossguide_lowbit", "binary:logistic",
                               "grow_policy = lossguide\nmax_leaves = 16\nquantized_grad = on\n"},
                      // A tree a class a round, each refit right after its growth.
                      DataCase{"missing_multiclass_lowbit", "multi:softprob",
                               "num_class = 3\nmax_depth = 5\nquantized_grad = on\n"}),
    [](const ::testing::TestParamInfo<DataCase>& info) { return std::string(info.param.name); });

// Each root-to-leaf path's split features, as sets.
void Paths(const RegTree& tree, int nid, std::set<uint32_t> path,
           std::vector<std::set<uint32_t>>* out) {
  if (tree[nid].IsLeaf()) {
    out->push_back(path);
    return;
  }
  path.insert(tree[nid].feature);
  Paths(tree, tree[nid].left, path, out);
  Paths(tree, tree[nid].right, path, out);
}

// Paths whose features are more than one feature and lie in no one set.
int MixedPaths(const Model& model, const std::vector<std::set<uint32_t>>& sets) {
  int mixed = 0;
  for (const RegTree& tree : model.trees) {
    std::vector<std::set<uint32_t>> paths;
    Paths(tree, 0, {}, &paths);
    for (const std::set<uint32_t>& path : paths) {
      bool inside = path.size() <= 1;
      for (const std::set<uint32_t>& set : sets) {
        inside |= std::includes(set.begin(), set.end(), path.begin(), path.end());
      }
      mixed += !inside;
    }
  }
  return mixed;
}

class Interaction : public ::testing::TestWithParam<DataCase> {};

TEST_P(Interaction, NoPathMixesFeaturesOfDifferentSets) {
  const DataCase& c = GetParam();
  const bool higgs = std::string(c.name).rfind("higgs", 0) == 0;
  if (higgs) RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  const std::string file = TrainFile(dir, c.name);
  const std::vector<std::set<uint32_t>> sets =
      higgs ? std::vector<std::set<uint32_t>>{{0, 1, 2, 25, 26}, {5, 22, 25, 27}, {9, 13}}
            : std::vector<std::set<uint32_t>>{{0, 1}, {2, 3, 4}, {1, 5}};
  const std::string value = higgs ? "[[0,1,2,25,26],[5,22,25,27],[9,13]]" : "[[0,1],[2,3,4],[1,5]]";
  const Model free = Train(dir, file, c, "", "free.json");
  const Model bound = Train(dir, file, c, "'interaction_constraints=" + value + "'", "bound.json");
  EXPECT_EQ(MixedPaths(bound, sets), 0);
  EXPECT_GT(MixedPaths(free, sets), 0) << "the check cannot tell a constrained model";
  // Features in no set do split (at a root), but only with themselves below.
  std::set<uint32_t> used;
  for (const RegTree& tree : bound.trees) {
    for (int nid = 0; nid < tree.NumNodes(); ++nid) {
      if (!tree[nid].IsLeaf()) used.insert(tree[nid].feature);
    }
  }
  EXPECT_GT(used.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Data, Interaction,
    ::testing::Values(DataCase{"higgs_depthwise", "binary:logistic", "max_depth = 6\n"},
                      DataCase{"missing_lossguide", "binary:logistic",
                               "grow_policy = lossguide\nmax_leaves = 16\n"}),
    [](const ::testing::TestParamInfo<DataCase>& info) { return std::string(info.param.name); });

// The same model file and eval log for 1 and 2 threads and 1-3 workers (ringboost-submit, mpirun).
TEST(Constraints, SameModelForThreadsAndWorkers) {
  test::TempDir dir;
  test::WriteGeneratedSparse(dir.File("train.txt"), 1500, 8, 0.2);
  test::WriteFile(dir.File("c.conf"),
                  "objective = binary:logistic\nmax_depth = 4\nnum_round = 4\n"
                  "monotone_constraints = (1,-1,0,1)\n"
                  "interaction_constraints = [[0,1,3],[2,3,4,5],[6]]\n"
                  "data = \"train.txt\"\neval[train] = \"train.txt\"\n");
  test::ExpectSameModelForThreadsAndWorkers(dir.path(), "train c.conf");
  test::ExpectSameModelForThreadsAndWorkers(dir.path(), "train c.conf quantized_grad=on");
}

// A model file trained with fmap= records the map's names; the rest is the model trained
// without it. Returns the file less its names, after checking them.
std::string WithoutNames(const std::string& file) {
  Model m = Model::FromJson(file, "model");
  EXPECT_EQ(m.feature_names, (std::vector<std::string>{"age", "income", "c", "d", "e", "f"}));
  m.feature_names.clear();
  return m.ToJson();
}

// The dict form by fmap names or f<N>, and interaction sets by name, give the positional model.
TEST(Constraints, FeatureNamesGiveTheSameModel) {
  test::TempDir dir;
  test::WriteGeneratedSparse(dir.File("train.txt"), 1000, 6, 0.1);
  test::WriteFile(dir.File("names.fmap"),
                  "0\tage\tq\n1\tincome\tq\n2\tc\tq\n3\td\tq\n4\te\tq\n5\tf\tq\n");
  test::WriteFile(
      dir.File("c.conf"),
      "objective = binary:logistic\nmax_depth = 4\nnum_round = 3\ndata = \"train.txt\"\n");
  auto train = [&](const std::string& keys, const std::string& out) {
    const test::RunResult r =
        test::RunRingboost(dir.path(), "train c.conf model_out=" + out + " " + keys);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return test::ReadFile(dir.File(out));
  };
  const std::string monotone = train("'monotone_constraints=(1,-1,0,0,0,0)'", "m.model");
  ASSERT_FALSE(monotone.empty());
  EXPECT_EQ(WithoutNames(train(
                "'monotone_constraints={\"age\": 1, \"income\": -1}' fmap=names.fmap", "m1.model")),
            monotone);
  EXPECT_EQ(train("'monotone_constraints={\"f1\":-1,\"f0\":1}'", "m2.model"), monotone);
  // Short lists leave the rest free, as XGBoost: (1,-1) is (1,-1,0,0,0,0).
  EXPECT_EQ(train("'monotone_constraints=(1,-1)'", "m3.model"), monotone);
  EXPECT_NE(train("'monotone_constraints=(1,1)'", "m4.model"), monotone);
  const std::string sets = train("'interaction_constraints=[[0,1],[2,3,4]]'", "i.model");
  ASSERT_FALSE(sets.empty());
  EXPECT_EQ(
      WithoutNames(train("fmap=names.fmap "
                         "'interaction_constraints=[[\"age\",\"income\"],[\"c\",\"d\",\"e\"]]'",
                         "i1.model")),
      sets);
  EXPECT_EQ(train("'interaction_constraints=[[\"f0\",1],[4,3,\"f2\"]]'", "i2.model"), sets);
  EXPECT_NE(train("'interaction_constraints=[[0,2],[1,3,4]]'", "i3.model"), sets);
}

// Each bad value stops the run before any model is written, naming the key and what is allowed.
TEST(Constraints, BadValuesAreConfigErrors) {
  test::TempDir dir;
  test::WriteGeneratedSparse(dir.File("train.txt"), 200, 6, 0.1);
  test::WriteFile(dir.File("names.fmap"), "0\tage\tq\n1\tincome\tq\n");
  test::WriteFile(dir.File("c.conf"),
                  "objective = binary:logistic\nnum_round = 2\ndata = \"train.txt\"\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"'monotone_constraints=(1,0,2)'", "-1 (decreasing), 0 (none) or 1 (increasing)"},
      {"'monotone_constraints=(1,0,-1,0,0,0,1)'", "has 7 values, but the training data has 6"},
      {"'monotone_constraints=(1,0'", "expected ',' or ')'"},
      {"'monotone_constraints=1;0'", "-1, 0, 1"},
      {"'monotone_constraints={\"salary\": 1}' fmap=names.fmap", "unknown feature name 'salary'"},
      {"'monotone_constraints={\"g7\": 1}'", "named f0 to f5"},
      {"'monotone_constraints={\"f9\": 1}'", "named f0 to f5"},
      {"'monotone_constraints={age: 1}'", "expected a quoted feature name"},
      {"'interaction_constraints=[[0,1],[2,x]]'", "[[0,1],[2,3,4]]"},
      {"'interaction_constraints=[0,1]'", "[[0,1],[2,3,4]]"},
      {"'interaction_constraints=[[0,1],[2,9]]'", "feature 9 does not exist"},
      {"'interaction_constraints=[[\"age\",\"tax\"]]' fmap=names.fmap",
       "unknown feature name 'tax'"},
  };
  for (const auto& [args, expected] : cases) {
    const std::string key = args.find("monotone") != std::string::npos ? "monotone_constraints"
                                                                       : "interaction_constraints";
    const test::RunResult r =
        test::RunRingboost(dir.path(), "train c.conf model_out=m.json " + args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_NE(r.err.find(key), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << args << ": " << r.err;
    EXPECT_FALSE(test::FileExists(dir.File("m.json"))) << args;
  }
}

}  // namespace
}  // namespace ringboost
