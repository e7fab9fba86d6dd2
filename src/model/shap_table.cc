// ShapTable (shap_table.h). Derivation of the leaf formula, for one leaf of value v whose path
// has d elements with zero fractions z_k and one fractions o_k (1 for k in S, else 0):
// TreeSHAP gives element j
//   v (o_j - z_j) sum over T subset of P \ {j} of w(|T|) prod_{k in T} o_k prod_{k not in T} z_k,
// w(t) = t! (d - 1 - t)! / d!. Only T inside S \ {j} survive (o_k = 0 elsewhere), and for such T
// the z product splits into prod over (S \ {j}) \ T, which with the weights sums to g(S \ {j}),
// times prod over the elements outside S other than j. For j in S that last product is Z(S); for
// j not in S it is Z(S) / z_j, and o_j - z_j = -z_j cancels the division (so z_j = 0 is fine).
#include "model/shap_table.h"

#include <cmath>
#include <utility>

namespace ringboost {
namespace {

// The distinct features met from the root to a node, with their zero-fraction products.
struct PathState {
  int count = 0;
  uint32_t feature[ShapTable::kMaxElements] = {};
  float zero[ShapTable::kMaxElements] = {};
};

// Calls visit(nid, state, bit) for every node, parents before children (bit = the node's
// feature's element bit, 0 for leaves). Returns false, stopping, when a path would pass
// kMaxElements distinct features. Iterative: trees may be chains of any depth.
template <typename Visit>
bool Preorder(const RegTree& tree, Visit visit) {
  std::vector<std::pair<int, PathState>> stack;
  stack.emplace_back(0, PathState{});
  while (!stack.empty()) {
    const auto [nid, state] = stack.back();
    stack.pop_back();
    const TreeNode& n = tree[nid];
    if (n.IsLeaf()) {
      visit(nid, state, 0u);
      continue;
    }
    int e = 0;
    while (e < state.count && state.feature[e] != n.feature) ++e;
    PathState next = state;
    if (e == next.count) {
      if (next.count == ShapTable::kMaxElements) return false;
      next.feature[next.count] = n.feature;
      next.zero[next.count++] = 1.0f;
    }
    visit(nid, state, 1u << e);
    for (const int child : {n.right, n.left}) {
      PathState c = next;
      c.zero[e] *= tree[child].sum_hess / n.sum_hess;
      stack.emplace_back(child, c);
    }
  }
  return true;
}

}  // namespace

std::size_t ShapTable::TableSize(const RegTree& tree) {
  std::size_t size = 0;
  const bool fits = Preorder(tree, [&](int nid, const PathState& s, uint32_t) {
    if (tree[nid].IsLeaf() && s.count > 0) size += std::size_t{1} << s.count;
  });
  return fits ? size : 0;
}

ShapTable::ShapTable(const RegTree& tree) : tree_(tree) {
  Preorder(tree, [&](int nid, const PathState& s, uint32_t bit) {
    if (!tree[nid].IsLeaf()) {
      splits_.push_back(Split{nid, bit});
      return;
    }
    if (s.count == 0) return;  // a lone root leaf: only the expected value
    const Leaf leaf{nid, s.count, features_.size(), table_.size()};
    features_.insert(features_.end(), s.feature, s.feature + s.count);
    zero_.insert(zero_.end(), s.zero, s.zero + s.count);
    table_.resize(table_.size() + (std::size_t{1} << s.count));
    leaves_.push_back(leaf);
    AddLeafTable(leaf, tree[nid].leaf_value);
  });
}

// table[A] = v g(A) for every subset A, from the polynomials prod_{k in A} (x + z_k) (the
// coefficient of x^t sums the z products over the A \ T with |T| = t), built subset by subset.
void ShapTable::AddLeafTable(const Leaf& leaf, float value) {
  const int d = leaf.elements;
  const std::size_t subsets = std::size_t{1} << d;
  std::vector<double> weight(d);
  for (int t = 0; t < d; ++t) {  // t! (d - 1 - t)! / d! = 1 / (d C(d - 1, t))
    double choose = 1;
    for (int i = 0; i < t; ++i) choose = choose * (d - 1 - i) / (i + 1);
    weight[t] = 1.0 / (d * choose);
  }
  std::vector<double> poly(subsets * (d + 1), 0.0);
  poly[0] = 1;
  const float* z = &zero_[leaf.first];
  float* table = &table_[leaf.table];
  table[0] = static_cast<float>(value * weight[0]);
  for (std::size_t a = 1; a < subsets; ++a) {
    const int low = __builtin_ctzll(a);
    const double* prev = &poly[(a & (a - 1)) * (d + 1)];
    double* p = &poly[a * (d + 1)];
    const int size = __builtin_popcountll(a);
    p[0] = z[low] * prev[0];
    for (int t = 1; t <= size; ++t) p[t] = prev[t - 1] + z[low] * prev[t];
    double g = 0;
    for (int t = 0; t <= std::min(size, d - 1); ++t) g += weight[t] * p[t];
    table[a] = static_cast<float>(value * g);
  }
}

void ShapTable::Add(const float* row, float* phi, uint32_t* masks) const {
  masks[0] = ~0u;
  for (const Split& s : splits_) {
    const TreeNode& n = tree_[s.node];
    const float x = row[n.feature];
    const bool left = std::isnan(x) ? n.default_left : n.GoesLeft(x);
    const uint32_t m = masks[s.node];
    masks[left ? n.left : n.right] = m;
    masks[left ? n.right : n.left] = m & ~s.bit;
  }
  for (const Leaf& leaf : leaves_) {
    const uint32_t in = masks[leaf.node] & ((1u << leaf.elements) - 1);
    const float* z = &zero_[leaf.first];
    const uint32_t* feature = &features_[leaf.first];
    const float* table = &table_[leaf.table];
    float outside = 1;  // Z(S)
    for (int j = 0; j < leaf.elements; ++j) {
      if (!(in >> j & 1u)) outside *= z[j];
    }
    const float absent = table[in] * outside;
    for (int j = 0; j < leaf.elements; ++j) {
      if (in >> j & 1u) {
        phi[feature[j]] += (1.0f - z[j]) * table[in ^ (1u << j)] * outside;
      } else {
        phi[feature[j]] -= absent;
      }
    }
  }
}

}  // namespace ringboost
