// TreeSHAP contributions of one tree by leaf tables: a row costs O(leaves x depth) instead of the
// recursive algorithm's O(leaves x depth^2), after a precomputation of 2^d values per leaf
// (d = distinct features on the leaf's path). The idea is Fast TreeSHAP v2's (Yang, 2021); the
// decomposition here is our own, derived in shap_table.cc.
//
// Each root-to-leaf path is reduced to its distinct features ("elements"): element j has the
// product z_j of the cover fractions of the path's nodes on that feature, and the row either
// follows all of them (j in S) or not. The leaf's share of the Shapley value of element j is
//   j in S:      v (1 - z_j) g(S \ {j}) Z(S)
//   j not in S:  -v g(S) Z(S)
// where Z(S) is the product of z_k over the elements not in S and
//   g(A) = sum over T subset of A of  |T|! (d - 1 - |T|)! / d!  x  product of z_k over A \ T.
// The table holds v g(A) for every subset A of the path's elements.
//
// Used for plain contributions; interaction values, which condition features on and off, walk
// the tree recursively (explain.cc). Not thread-affine: Add is const and may run on any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/tree.h"

namespace ringboost {

class ShapTable {
 public:
  // The most distinct features a path may have for the tree to get tables.
  static constexpr int kMaxElements = 12;

  // Table values the tree would need, or 0 when a path has more than kMaxElements features.
  static std::size_t TableSize(const RegTree& tree);

  explicit ShapTable(const RegTree& tree);

  // Adds the tree's SHAP values of `row` (dense, NaN = missing) to phi[feature]. `masks` has
  // room for the tree's NumNodes() values (scratch owned by the calling thread).
  void Add(const float* row, float* phi, uint32_t* masks) const;

 private:
  struct Leaf {
    int node;
    int elements;       // d
    std::size_t first;  // this leaf's elements in features_ / zero_
    std::size_t table;  // this leaf's 2^d values in table_
  };
  struct Split {  // an internal node, in preorder
    int node;
    uint32_t bit;  // its feature's element bit on every path through it
  };

  void AddLeafTable(const Leaf& leaf, float value);

  const RegTree& tree_;
  std::vector<Split> splits_;
  std::vector<Leaf> leaves_;
  std::vector<uint32_t> features_;
  std::vector<float> zero_;
  std::vector<float> table_;
};

}  // namespace ringboost
