// CodedColumns (predict.h): a sparse eval set by feature, coded against the training cuts, and
// the level-by-level walk of a tree over it.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "common/error.h"
#include "common/parallel.h"
#include "common/sort_util.h"
#include "common/threads.h"
#include "tree/predict.h"
#include "tree/split_types.h"

namespace ringboost {

namespace {

// Thread t's contiguous share of n rows among `threads`.
RowRange Share(uint64_t n, int t, int threads) {
  return RowRange{detail::ShareBegin(n, t, threads), detail::ShareBegin(n, t + 1, threads)};
}

// A tree as CodedColumns walk it: per node its column, code threshold and children (a leaf's
// children itself), and the split nodes of each depth.
struct ColumnTree {
  struct Node {
    uint32_t feature = 0;
    uint32_t threshold = 0;  // left when the code is at most this
    int32_t left = 0, right = 0, by_default = 0;
  };
  std::vector<Node> nodes;
  std::vector<std::vector<int32_t>> splits_at;  // per depth, its split nodes

  // False where a split is categorical, on a feature beyond the cuts, or off its feature's E_f.
  bool Init(const RegTree& tree, const HistogramCuts& cuts) {
    const std::vector<int> depth = NodeDepths(tree);
    nodes.assign(tree.NumNodes(), Node{});
    for (int nid = 0; nid < tree.NumNodes(); ++nid) {
      const TreeNode& x = tree[nid];
      if (depth[nid] < 0 || x.IsLeaf()) {
        nodes[nid] = Node{0, 0, nid, nid, nid};
        continue;
      }
      if (x.is_cat || x.feature >= cuts.NumFeatures()) return false;
      const std::vector<float> bounds = CodedRows::Bounds(cuts, x.feature);
      const auto at = std::lower_bound(bounds.begin(), bounds.end(), x.split_cond);
      if (at == bounds.end() || !(*at == x.split_cond)) return false;
      nodes[nid] = Node{x.feature, static_cast<uint32_t>(at - bounds.begin()), x.left, x.right,
                        x.default_left ? x.left : x.right};
      if (splits_at.size() <= static_cast<std::size_t>(depth[nid]))
        splits_at.resize(depth[nid] + 1);
      splits_at[depth[nid]].push_back(nid);
    }
    return true;
  }
};

}  // namespace

CodedColumns CodedColumns::Take(DataSet* data, const HistogramCuts& cuts, int nthread) {
  RB_CHECK(CodedRows::Serves(cuts));
  RB_CHECK_MSG(data->NumRows() < (uint64_t{1} << 32), "too many rows for one worker's eval set");
  CodedColumns out;
  out.num_rows = data->NumRows();
  const uint32_t nf = cuts.NumFeatures();
  const int threads = ResolveThreads(nthread);
  // Each thread counts, then places, the entries of its share of the rows: within a column the
  // shares follow each other, so its rows ascend.
  std::vector<uint64_t> at(static_cast<std::size_t>(threads) * nf, 0);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const RowRange mine = Share(out.num_rows, t, omp_get_num_threads());
    uint64_t* count = at.data() + static_cast<std::size_t>(t) * nf;
    for (uint64_t k = data->row_ptr[mine.begin]; k < data->row_ptr[mine.end]; ++k) {
      if (data->index[k] < nf) ++count[data->index[k]];
    }
  }
  out.ptr.assign(nf + 1, 0);
  uint64_t total = 0;
  for (uint32_t f = 0; f < nf; ++f) {
    out.ptr[f] = total;
    for (int t = 0; t < threads; ++t) {
      const uint64_t count = at[static_cast<std::size_t>(t) * nf + f];
      at[static_cast<std::size_t>(t) * nf + f] = total;
      total += count;
    }
  }
  out.ptr[nf] = total;
  out.rows.resize(total);
  out.codes.resize(total);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const RowRange mine = Share(out.num_rows, t, omp_get_num_threads());
    uint64_t* next = at.data() + static_cast<std::size_t>(t) * nf;
    for (uint64_t r = mine.begin; r < mine.end; ++r) {
      for (uint64_t k = data->row_ptr[r]; k < data->row_ptr[r + 1]; ++k) {
        const uint32_t f = data->index[k];
        if (f >= nf) continue;
        const uint64_t pos = next[f]++;
        out.rows[pos] = static_cast<uint32_t>(r);
        out.codes[pos] = CodedRows::Code(cuts, f, data->value[k]);
      }
    }
  }
  std::vector<uint32_t>().swap(data->index);
  std::vector<float>().swap(data->value);
  return out;
}

bool AddTreeMargins(const std::vector<const RegTree*>& trees, const std::vector<int>& groups,
                    const CodedColumns& columns, const HistogramCuts& cuts, int stride,
                    float* margins, int nthread) {
  RB_CHECK(trees.size() == groups.size());
  RB_CHECK(columns.NumFeatures() == cuts.NumFeatures());
  std::vector<ColumnTree> walks(trees.size());
  for (std::size_t t = 0; t < trees.size(); ++t) {
    if (!walks[t].Init(*trees[t], cuts)) return false;
  }
  const uint32_t* column_rows = columns.rows.data();
  const uint16_t* codes = columns.codes.data();
  ParallelErrors errors;  // each thread's node buffer is allocated inside the region
#pragma omp parallel num_threads(ResolveThreads(nthread))
  {
    const RowRange mine = Share(columns.num_rows, omp_get_thread_num(), omp_get_num_threads());
    std::vector<int32_t> at;  // per row of the share, its node
    errors.Run([&] { at.resize(mine.size()); });
    for (std::size_t t = 0; t < trees.size() && at.size() == mine.size(); ++t) {
      const std::vector<ColumnTree::Node>& nodes = walks[t].nodes;
      std::fill(at.begin(), at.end(), 0);
      for (const std::vector<int32_t>& splits : walks[t].splits_at) {
        // Every row of a split node of this depth takes its default child (a row in a leaf stays),
        for (int32_t& nid : at) nid = nodes[nid].by_default;
        // then the rows the node's column holds go by their codes.
        for (int32_t nid : splits) {
          const ColumnTree::Node& x = nodes[nid];
          const uint32_t* begin = column_rows + columns.ptr[x.feature];
          const uint32_t* end = column_rows + columns.ptr[x.feature + 1];
          const uint32_t* first = std::lower_bound(begin, end, static_cast<uint32_t>(mine.begin));
          const uint32_t* last = std::lower_bound(first, end, static_cast<uint32_t>(mine.end));
          for (const uint32_t* p = first; p < last; ++p) {
            int32_t& row_at = at[*p - mine.begin];
            if (row_at == x.left || row_at == x.right) {
              row_at = codes[p - column_rows] <= x.threshold ? x.left : x.right;
            }
          }
        }
      }
      const RegTree& tree = *trees[t];
      for (uint64_t i = 0; i < mine.size(); ++i) {
        margins[(mine.begin + i) * stride + groups[t]] += tree[at[i]].leaf_value;
      }
    }
  }
  errors.Rethrow();
  return true;
}

}  // namespace ringboost
