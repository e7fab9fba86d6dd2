// Explain: leaf ids, TreeSHAP contributions and SHAP interaction values (explain.h).
//
// TreeSHAP walks each tree once per row, keeping the "unique path" of features met from the
// root: for each path element the fraction of training cover that flows through when the
// feature is unknown (zero_fraction) or known (one_fraction: 1 on the row's branch, 0 on the
// other), and the permutation weights of the subsets of the path. A leaf adds to every feature
// on the path its weight times (one - zero fraction) times the leaf value. Meeting a feature
// again first removes its earlier element (unwinding), so each feature appears once. A
// condition (+1 on / -1 off) on one feature, used for interactions, keeps that feature off the
// path and either follows only the row's branch (on) or splits the weight by cover (off).
#include "model/explain.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "common/error.h"
#include "common/memory.h"
#include "common/parallel.h"
#include "model/shap_table.h"

namespace ringboost {
namespace {

struct PathElement {
  int64_t feature;  // -1 for the root's placeholder
  float zero_fraction;
  float one_fraction;
  float weight;
};

// A condition on one feature for interaction values: sign 0 = none, +1 = on, -1 = off.
struct Condition {
  int sign = 0;
  int64_t feature = -1;
};

// Adds a feature to the end of the path, updating the subset weights.
void Extend(PathElement* path, int depth, float zero, float one, int64_t feature) {
  path[depth] = PathElement{feature, zero, one, depth == 0 ? 1.0f : 0.0f};
  for (int i = depth - 1; i >= 0; --i) {
    path[i + 1].weight +=
        one * path[i].weight * static_cast<float>(i + 1) / static_cast<float>(depth + 1);
    path[i].weight =
        zero * path[i].weight * static_cast<float>(depth - i) / static_cast<float>(depth + 1);
  }
}

// Removes element `index` from the path, undoing Extend.
void Unwind(PathElement* path, int depth, int index) {
  const float one = path[index].one_fraction;
  const float zero = path[index].zero_fraction;
  float next = path[depth].weight;
  for (int i = depth - 1; i >= 0; --i) {
    if (one != 0) {
      const float saved = path[i].weight;
      path[i].weight = next * static_cast<float>(depth + 1) / (static_cast<float>(i + 1) * one);
      next = saved -
             path[i].weight * zero * static_cast<float>(depth - i) / static_cast<float>(depth + 1);
    } else {
      path[i].weight =
          path[i].weight * static_cast<float>(depth + 1) / (zero * static_cast<float>(depth - i));
    }
  }
  for (int i = index; i < depth; ++i) {
    path[i].feature = path[i + 1].feature;
    path[i].zero_fraction = path[i + 1].zero_fraction;
    path[i].one_fraction = path[i + 1].one_fraction;
  }
}

// The total subset weight the path would have without element `index`.
float UnwoundSum(const PathElement* path, int depth, int index) {
  const float one = path[index].one_fraction;
  const float zero = path[index].zero_fraction;
  float next = path[depth].weight;
  float total = 0;
  for (int i = depth - 1; i >= 0; --i) {
    if (one != 0) {
      const float w = next * static_cast<float>(depth + 1) / (static_cast<float>(i + 1) * one);
      total += w;
      next = path[i].weight -
             w * zero * (static_cast<float>(depth - i) / static_cast<float>(depth + 1));
    } else if (zero != 0) {
      total +=
          (path[i].weight / zero) / (static_cast<float>(depth - i) / static_cast<float>(depth + 1));
    }
  }
  return total;
}

// The child of split node `nid` that `row` takes (num_feature values, NaN = missing).
int NextNode(const RegTree& tree, int nid, const float* row) {
  const TreeNode& n = tree[nid];
  const float v = row[n.feature];
  if (std::isnan(v)) return n.default_left ? n.left : n.right;
  return n.GoesLeft(v) ? n.left : n.right;
}

// The leaf `row` reaches.
int LeafOf(const RegTree& tree, const float* row) {
  int nid = 0;
  while (!tree[nid].IsLeaf()) nid = NextNode(tree, nid, row);
  return nid;
}

// The deepest tree the recursive walk (AddShap) takes: its path scratch holds
// (depth + 2)(depth + 3) / 2 elements of 24 bytes a thread, 12 MB at this depth.
constexpr int kMaxWalkDepth = 1000;

// One tree prepared for explanations: its nodes' cover-weighted mean values and its depth.
class TreeExplainer {
 public:
  explicit TreeExplainer(const RegTree& tree) : tree_(tree), mean_(tree.NumNodes()) {
    MeanValues();
  }
  float ExpectedValue() const { return mean_[0]; }
  int Depth() const { return depth_; }
  std::size_t PathSpace() const { return static_cast<std::size_t>(depth_ + 2) * (depth_ + 3) / 2; }

  // Adds this tree's SHAP values of `row` to phi[0 .. num_feature). `path` has PathSpace().
  void AddShap(const float* row, float* phi, Condition c, PathElement* path) const {
    Walk(row, phi, 0, 0, path, 1.0f, 1.0f, -1, c, 1.0f);
  }

 private:
  // Fills mean_ (in float, children weighted by their hessian) and depth_ without recursion, as
  // trees may be chains of any depth: a preorder has parents before children, so its reverse
  // reaches every node after its children.
  void MeanValues() {
    std::vector<int> order;
    order.reserve(mean_.size());
    std::vector<std::pair<int, int>> stack{{0, 0}};  // node, depth
    while (!stack.empty()) {
      const auto [nid, depth] = stack.back();
      stack.pop_back();
      order.push_back(nid);
      const TreeNode& n = tree_[nid];
      depth_ = std::max(depth_, depth);
      if (n.IsLeaf()) continue;
      stack.emplace_back(n.left, depth + 1);
      stack.emplace_back(n.right, depth + 1);
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const TreeNode& n = tree_[*it];
      if (n.IsLeaf()) {
        mean_[*it] = n.leaf_value;
        continue;
      }
      float sum = mean_[n.left] * tree_[n.left].sum_hess;
      sum += mean_[n.right] * tree_[n.right].sum_hess;
      mean_[*it] = sum / n.sum_hess;
    }
  }

  void Walk(const float* row, float* phi, int nid, int depth, PathElement* parent_path, float zero,
            float one, int64_t feature, Condition c, float fraction) const {
    if (fraction == 0) return;
    PathElement* path = parent_path + depth + 1;
    std::copy(parent_path, parent_path + depth + 1, path);
    if (c.sign == 0 || c.feature != feature) Extend(path, depth, zero, one, feature);
    const TreeNode& n = tree_[nid];
    if (n.IsLeaf()) {
      for (int i = 1; i <= depth; ++i) {
        const float w = UnwoundSum(path, depth, i);
        phi[path[i].feature] +=
            w * (path[i].one_fraction - path[i].zero_fraction) * n.leaf_value * fraction;
      }
      return;
    }
    const int hot = NextNode(tree_, nid, row);
    const int cold = hot == n.left ? n.right : n.left;
    const float hot_zero = tree_[hot].sum_hess / n.sum_hess;
    const float cold_zero = tree_[cold].sum_hess / n.sum_hess;
    float incoming_zero = 1, incoming_one = 1;
    int seen = 0;
    while (seen <= depth && path[seen].feature != n.feature) ++seen;
    if (seen <= depth) {  // the feature is on the path already: take its element out
      incoming_zero = path[seen].zero_fraction;
      incoming_one = path[seen].one_fraction;
      Unwind(path, depth, seen);
      depth -= 1;
    }
    float hot_fraction = fraction, cold_fraction = fraction;
    if (c.sign != 0 && c.feature == n.feature) {
      if (c.sign > 0) {
        cold_fraction = 0;
      } else {
        hot_fraction *= hot_zero;
        cold_fraction *= cold_zero;
      }
      depth -= 1;
    }
    Walk(row, phi, hot, depth + 1, path, hot_zero * incoming_zero, incoming_one, n.feature, c,
         hot_fraction);
    Walk(row, phi, cold, depth + 1, path, cold_zero * incoming_zero, 0.0f, n.feature, c,
         cold_fraction);
  }

  const RegTree& tree_;
  std::vector<float> mean_;
  int depth_ = 0;
};

// Rows one thread explains at a time (BlockContribs).
constexpr int64_t kExplainBlock = 64;

// Table values (4 bytes each) all trees of one call may precompute: 128 MiB.
constexpr std::size_t kShapTableBudget = std::size_t{1} << 25;

// The explainers of the trees, shared by all threads; tables[t] is null where tree t walks
// recursively (conditions, paths past ShapTable::kMaxElements, the budget, or too few rows to
// pay for the table).
struct Forest {
  const Model& model;
  std::vector<TreeExplainer> trees;
  std::vector<std::unique_ptr<ShapTable>> tables;
  std::size_t path_space = 0;
  int max_nodes = 0;
};

// Scratch of one thread.
struct RowScratch {
  std::vector<PathElement> path;
  std::vector<uint32_t> masks;
  std::vector<float> values;
};

// Contributions of `n` dense rows (`stride` floats apart) into out (`per_row` floats apart,
// zeroed by the caller), groups x (F + 1) a row. Trees outer, rows inner, so that a tree's table
// stays in cache for the block; each value still sums in tree order, as for a row alone.
void BlockContribs(const Forest& f, const float* rows, int n, std::size_t stride, Condition c,
                   RowScratch* s, float* out, std::size_t per_row) {
  const uint32_t nf = f.model.num_feature;
  for (std::size_t t = 0; t < f.trees.size(); ++t) {
    const std::size_t offset = static_cast<std::size_t>(f.model.tree_group[t]) * (nf + 1);
    for (int i = 0; i < n; ++i) {
      float* phi = out + i * per_row + offset;
      const float* row = rows + i * stride;
      if (c.sign == 0) phi[nf] += f.trees[t].ExpectedValue();
      if (c.sign == 0 && f.tables[t]) {
        f.tables[t]->Add(row, phi, s->masks.data());
      } else {
        f.trees[t].AddShap(row, phi, c, s->path.data());
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int g = 0; g < f.model.num_groups; ++g) {
      out[i * per_row + static_cast<std::size_t>(g) * (nf + 1) + nf] += f.model.BaseMargin(g);
    }
  }
}

void RowContribs(const Forest& f, const float* row, Condition c, RowScratch* s, float* out) {
  BlockContribs(f, row, 1, 0, c, s, out, 0);
}

// Interaction values of one row: groups x (F + 1) x (F + 1).
void RowInteractions(const Forest& f, const float* row, RowScratch* s, float* out) {
  const std::size_t cols = f.model.num_feature + 1;
  const std::size_t block = cols * f.model.num_groups;
  s->values.assign(3 * block, 0.0f);
  float* diag = s->values.data();
  float* on = diag + block;
  float* off = on + block;
  RowContribs(f, row, Condition{}, s, diag);
  for (std::size_t i = 0; i < cols; ++i) {
    std::fill(on, on + 2 * block, 0.0f);
    RowContribs(f, row, Condition{1, static_cast<int64_t>(i)}, s, on);
    RowContribs(f, row, Condition{-1, static_cast<int64_t>(i)}, s, off);
    for (int g = 0; g < f.model.num_groups; ++g) {
      float* o = out + g * cols * cols + i * cols;
      const std::size_t c0 = g * cols;
      o[i] = 0;  // the diagonal: the additive effect less the interactions, summed in order
      for (std::size_t k = 0; k < cols; ++k) {
        if (k == i) {
          o[i] += diag[c0 + k];
        } else {
          o[k] = (on[c0 + k] - off[c0 + k]) / 2.0f;
          o[i] -= o[k];
        }
      }
    }
  }
}

// Writes rows [first, first + n) of `data` into `dense` (`stride` floats a row, features past
// the last column dropped) when `set`, or puts NaN back where they were when not.
void FillDense(const DataSet& data, int64_t first, int n, std::size_t stride, float* dense,
               bool set) {
  for (int i = 0; i < n; ++i) {
    float* row = dense + i * stride;
    for (uint64_t k = data.row_ptr[first + i]; k < data.row_ptr[first + i + 1]; ++k) {
      if (data.index[k] < stride - 1) {
        row[data.index[k]] = set ? data.value[k] : std::numeric_limits<float>::quiet_NaN();
      }
    }
  }
}

// The trees of the first `num_rounds` rounds (0 = all). (TreesForRounds lives with prediction,
// above this module.)
std::size_t ExplainedTrees(const Model& model, int num_rounds) {
  if (num_rounds < 0 || num_rounds > model.num_rounds) {
    RB_FAIL("cannot explain with " << num_rounds << " rounds: the model has " << model.num_rounds
                                   << " (use 0 for all, or a number up to " << model.num_rounds
                                   << ")");
  }
  const int rounds = num_rounds == 0 ? model.num_rounds : num_rounds;
  return std::min(model.trees.size(), static_cast<std::size_t>(rounds) * model.num_groups);
}

// The explainers of the first `num_trees` trees for `rows` rows of contributions or interactions.
// A tree gets a table when it fits the budget and the rows pay for it (a table costs about d per
// value once, the recursive walk about d per node per row), or the walk cannot take it. A tree
// the walk takes (one without a table; every tree for interactions) must be at most
// kMaxWalkDepth deep: Throws Error naming it.
Forest MakeForest(const Model& model, std::size_t num_trees, ExplainKind kind, int64_t rows) {
  Forest forest{model, {}, {}, 0, 0};
  std::size_t budget = kShapTableBudget;
  for (std::size_t t = 0; t < num_trees; ++t) {
    const RegTree& tree = model.trees[t];
    forest.trees.emplace_back(tree);
    const TreeExplainer& explainer = forest.trees.back();
    forest.max_nodes = std::max(forest.max_nodes, tree.NumNodes());
    const std::size_t size = ShapTable::TableSize(tree);
    const bool pays = static_cast<double>(size) <= static_cast<double>(rows) * tree.NumNodes();
    if (size > 0 && size <= budget && (pays || explainer.Depth() > kMaxWalkDepth)) {
      forest.tables.push_back(std::make_unique<ShapTable>(tree));
      budget -= size;
    } else {
      forest.tables.push_back(nullptr);
    }
    const bool contribs = kind == ExplainKind::kContribs;
    if (contribs && forest.tables.back()) continue;
    if (explainer.Depth() > kMaxWalkDepth) {
      RB_FAIL((contribs ? "pred_contribs" : "pred_interactions")
              << ": tree " << t << " is " << explainer.Depth() << " levels deep; SHAP values "
              << "take trees up to " << kMaxWalkDepth << " levels (their scratch grows with the "
              << "square of the depth)"
              << (contribs ? ", or trees with at most " + std::to_string(ShapTable::kMaxElements) +
                                 " distinct features on a path"
                           : std::string()));
    }
    forest.path_space = std::max(forest.path_space, explainer.PathSpace());
  }
  return forest;
}

}  // namespace

bool ExplainKindFromParams(const Params& params, ExplainKind* kind) {
  const int set = params.pred_leaf + params.pred_contribs + params.pred_interactions;
  if (set > 1) {
    RB_FAIL(
        "pred_leaf, pred_contribs and pred_interactions ask for different outputs; set one "
        "of them to 1");
  }
  if (set == 0) return false;
  *kind = params.pred_leaf       ? ExplainKind::kLeaf
          : params.pred_contribs ? ExplainKind::kContribs
                                 : ExplainKind::kInteractions;
  return true;
}

uint64_t ExplainValuesPerRow(const Model& model, ExplainKind kind, int num_rounds) {
  const std::size_t num_trees = ExplainedTrees(model, num_rounds);
  const uint64_t cols = static_cast<uint64_t>(model.num_feature) + 1;
  switch (kind) {
    case ExplainKind::kLeaf:
      return num_trees;
    case ExplainKind::kContribs:
      return MulSat(model.num_groups, cols);
    case ExplainKind::kInteractions:
      return MulSat(MulSat(model.num_groups, cols), cols);
  }
  return 0;
}

std::vector<float> Explain(const Model& model, const DataSet& data, int num_rounds,
                           ExplainKind kind, int nthread, uint64_t job_rows) {
  const std::size_t num_trees = ExplainedTrees(model, num_rounds);
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  const int64_t deciding = job_rows == 0 ? rows : static_cast<int64_t>(job_rows);
  // Leaf ids need none of the SHAP machinery, so they work for trees of any depth.
  const Forest forest = kind == ExplainKind::kLeaf ? Forest{model, {}, {}, 0, 0}
                                                   : MakeForest(model, num_trees, kind, deciding);
  const uint64_t per_row = ExplainValuesPerRow(model, kind, num_rounds);
  const char* name = kind == ExplainKind::kLeaf       ? "pred_leaf"
                     : kind == ExplainKind::kContribs ? "pred_contribs"
                                                      : "pred_interactions";
  CheckAllocation(
      MulSat(MulSat(static_cast<uint64_t>(rows), per_row), sizeof(float)), name,
      std::to_string(rows) + " rows x " + std::to_string(per_row) + " values a row x 4 bytes",
      "explain fewer rows at a time, or fewer features (a model's num_feature)");
  std::vector<float> out(static_cast<std::size_t>(rows * per_row), 0.0f);
  const std::size_t stride = model.num_feature + 1;
  // Rows a thread takes at a time: up to kExplainBlock, and their dense copies under 16 MiB.
  const int64_t block =
      std::max<int64_t>(1, std::min<int64_t>(kExplainBlock, (std::size_t{1} << 22) / stride));
  const int64_t num_blocks = (rows + block - 1) / block;
  ParallelErrors errors;  // per-thread buffers, and the interactions' scratch, grow inside
#pragma omp parallel num_threads(nthread > 0 ? nthread : omp_get_num_procs())
  {
    std::vector<float> dense;
    RowScratch scratch;
    bool ready = false;
    errors.Run([&] {
      dense.assign(block * stride, std::numeric_limits<float>::quiet_NaN());
      scratch.path.resize(forest.path_space);
      scratch.masks.resize(forest.max_nodes);
      ready = true;
    });
#pragma omp for schedule(dynamic, 1)
    for (int64_t b = 0; b < num_blocks; ++b) {
      if (!ready || errors.failed()) continue;  // rethrown below
      errors.Run([&] {
        const int64_t first = b * block;
        const int n = static_cast<int>(std::min(block, rows - first));
        FillDense(data, first, n, stride, dense.data(), true);
        float* o = out.data() + first * per_row;
        if (kind == ExplainKind::kContribs) {
          BlockContribs(forest, dense.data(), n, stride, Condition{}, &scratch, o, per_row);
        }
        for (int i = 0; i < n && kind != ExplainKind::kContribs; ++i) {
          const float* row = dense.data() + i * stride;
          float* ro = o + i * per_row;
          if (kind == ExplainKind::kLeaf) {
            for (std::size_t t = 0; t < num_trees; ++t) {
              ro[t] = static_cast<float>(LeafOf(model.trees[t], row));
            }
          } else {
            RowInteractions(forest, row, &scratch, ro);
          }
        }
        FillDense(data, first, n, stride, dense.data(), false);
      });
    }
  }
  errors.Rethrow();
  return out;
}

}  // namespace ringboost
