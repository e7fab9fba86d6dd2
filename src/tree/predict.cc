// PredictMargin and AddTreeMargins (predict.h): trees' leaf values summed per row.
//
// Each thread takes whole blocks of rows and owns dense float buffers for TreeWalker::kMaxRows
// rows (NaN = missing), filled from the CSR before a block and reset after it, so the cost per
// row is its stored entries, not num_feature; the block's rows walk each tree together. A row's
// margin adds the leaf value of each tree in tree order, in float, as XGBoost's CPU predictor
// does; the result does not depend on the thread count because no sum crosses rows. Rows coded
// against the training cuts (CodedRows: the eval sets during training) walk 64 at a time by
// AVX-512 gathers where the CPU has it, over a complete copy of each tree (CodedWalker).
#include "tree/predict.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "common/error.h"
#include "common/memory.h"
#include "common/parallel.h"
#include "model/model.h"
#include "tree/gpu_hist/trainer.h"

namespace ringboost {

namespace {

// Adds the trees' leaf values of rows [begin, begin + n) (row i of the block at rows + i * width):
// TreeWalkers over floats, CodedWalkers over codes.
template <typename Walker, typename Cell>
void AddBlock(const std::vector<Walker>& walkers, const std::vector<const RegTree*>& trees,
              const std::vector<int>& groups, const Cell* rows, std::size_t width, uint64_t begin,
              int n, int stride, float* margins) {
  int leaves[TreeWalker::kMaxRows];
  for (std::size_t t = 0; t < walkers.size(); ++t) {
    walkers[t].Leaves(rows, width, n, leaves);
    for (int i = 0; i < n; ++i) {
      margins[(begin + i) * stride + groups[t]] += (*trees[t])[leaves[i]].leaf_value;
    }
  }
}

std::vector<TreeWalker> Walkers(const std::vector<const RegTree*>& trees,
                                const std::vector<int>& groups, uint32_t num_feature) {
  RB_CHECK(trees.size() == groups.size());
  std::vector<TreeWalker> walkers;
  for (const RegTree* tree : trees) walkers.emplace_back(*tree, num_feature);
  return walkers;
}

// The features the trees split on, and how a row buffer holds them. Normally the buffer is
// indexed by feature id up to the largest split feature (features above it are never read, so a
// large num_feature costs nothing); when the split features are few and their ids large (a
// sparse id space), the trees are copied with each feature renumbered to its rank among them and
// the buffer holds only those: memory follows the features the trees use, not the largest id.
// Renumbered, a feature's column is read from a table indexed by id (up to kMaxTable ids: every
// entry of the rows asks), else found by a binary search.
struct SplitFeatures {
  static constexpr uint32_t kMaxTable = uint32_t{1} << 20;  // 4 MB of table at most
  std::vector<uint32_t> ids;  // sorted distinct split features (when renumbered)
  uint32_t width = 0;         // features in the buffer
  bool renumbered = false;
  std::vector<RegTree> trees;       // the renumbered copies
  std::vector<uint32_t> column_of;  // renumbered: feature id -> column, ids up to ids.back()

  SplitFeatures(const std::vector<const RegTree*>& in, uint32_t num_feature) {
    for (const RegTree* tree : in) {
      for (const TreeNode& node : tree->nodes()) {
        if (!node.IsLeaf() && node.feature < num_feature) ids.push_back(node.feature);
      }
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    width = ids.empty() ? 0 : ids.back() + 1;
    if (width <= 4 * ids.size() + 4096) return;  // dense enough: ids index the buffer
    renumbered = true;
    width = static_cast<uint32_t>(ids.size());
    if (ids.back() < kMaxTable) {
      column_of.assign(ids.back() + 1, width);
      for (uint32_t c = 0; c < width; ++c) column_of[ids[c]] = c;
    }
    for (const RegTree* tree : in) {
      trees.push_back(*tree);
      for (TreeNode& node : trees.back().nodes()) {
        if (!node.IsLeaf()) node.feature = Column(node.feature);
      }
    }
  }
  // The buffer column of feature `f`, or `width` when the trees do not split on it.
  uint32_t Column(uint32_t f) const {
    if (!renumbered) return f < width ? f : width;
    if (!column_of.empty()) return f < column_of.size() ? column_of[f] : width;
    auto it = std::lower_bound(ids.begin(), ids.end(), f);
    return it != ids.end() && *it == f ? static_cast<uint32_t>(it - ids.begin()) : width;
  }
  std::vector<const RegTree*> Trees(const std::vector<const RegTree*>& in) const {
    if (!renumbered) return in;
    std::vector<const RegTree*> out;
    for (const RegTree& tree : trees) out.push_back(&tree);
    return out;
  }
};

constexpr int kRows = TreeWalker::kMaxRows;
int Threads(int nthread) { return nthread > 0 ? nthread : omp_get_max_threads(); }

// AddBlock over all rows of a row-major matrix (num_rows x width cells). Each thread walks one
// contiguous share of the rows, a stream its prefetchers follow: chunks of 64 rows dealt out in
// turn cost 1.5x the time (dense bench set's 200k test rows, 60 rounds, alternating runs: 0.23 s
// against 0.15).
template <typename Walker, typename Cell>
void AddMatrixMargins(const std::vector<Walker>& walkers, const std::vector<const RegTree*>& trees,
                      const std::vector<int>& groups, const Cell* cells, std::size_t width,
                      uint64_t num_rows, int stride, float* margins, int nthread) {
  const int64_t num_blocks = static_cast<int64_t>((num_rows + kRows - 1) / kRows);
#pragma omp parallel for schedule(static) num_threads(Threads(nthread))
  for (int64_t b = 0; b < num_blocks; ++b) {
    const uint64_t begin = static_cast<uint64_t>(b) * kRows;
    const uint64_t end = std::min(num_rows, begin + kRows);
    AddBlock(walkers, trees, groups, cells + begin * width, width, begin,
             static_cast<int>(end - begin), stride, margins);
  }
}

}  // namespace

void AddTreeMargins(const std::vector<const RegTree*>& trees, const std::vector<int>& groups,
                    uint32_t num_feature, const DataSet& data, int stride, float* margins,
                    int nthread) {
  const SplitFeatures features(trees, num_feature);
  const std::vector<const RegTree*> walked = features.Trees(trees);
  const std::vector<TreeWalker> walkers = Walkers(walked, groups, features.width);
  const std::size_t width = static_cast<std::size_t>(features.width) + 1;  // and the NaN pad
  const uint64_t num_rows = data.NumRows();
  const int64_t num_blocks = static_cast<int64_t>((num_rows + kRows - 1) / kRows);
  ParallelErrors errors;  // each thread's row buffer is allocated inside the region
#pragma omp parallel num_threads(Threads(nthread))
  {
    std::vector<float> rows;
    errors.Run([&] { rows.assign(kRows * width, std::numeric_limits<float>::quiet_NaN()); });
    // Entries of features the trees never saw cannot be split on: they stay out of the buffer.
    auto set = [&](uint64_t begin, uint64_t end, bool values) {
      for (uint64_t r = begin; r < end; ++r) {
        float* row = rows.data() + (r - begin) * width;
        for (uint64_t k = data.row_ptr[r]; k < data.row_ptr[r + 1]; ++k) {
          const uint32_t c = features.Column(data.index[k]);
          if (c < features.width) row[c] = values ? data.value[k] : NAN;
        }
      }
    };
#pragma omp for schedule(static, 8)
    for (int64_t b = 0; b < num_blocks; ++b) {
      if (rows.empty()) continue;  // this thread's buffer failed: rethrown below
      const uint64_t begin = static_cast<uint64_t>(b) * kRows;
      const uint64_t end = std::min(num_rows, begin + kRows);
      set(begin, end, true);
      AddBlock(walkers, walked, groups, rows.data(), width, begin, static_cast<int>(end - begin),
               stride, margins);
      set(begin, end, false);
    }
  }
  errors.Rethrow();
}

bool DenseRows::Pays(const DataSet& data, uint32_t num_feature) {
  const uint64_t cells = data.NumRows() * (static_cast<uint64_t>(num_feature) + 1);
  return cells * sizeof(float) <= data.NumNonZero() * (sizeof(float) + sizeof(uint32_t));
}

namespace {

// Writes rows [begin, end) of `data` into the matrix at `values` (num_feature + 1 columns).
void FillDenseRows(const DataSet& data, uint32_t num_feature, int64_t begin, int64_t end,
                   int nthread, float* values) {
  const std::size_t width = static_cast<std::size_t>(num_feature) + 1;
#pragma omp parallel for schedule(static) num_threads(Threads(nthread))
  for (int64_t r = begin; r < end; ++r) {
    float* row = values + r * width;
    std::fill(row, row + width, std::numeric_limits<float>::quiet_NaN());
    for (uint64_t k = data.row_ptr[r]; k < data.row_ptr[r + 1]; ++k) {
      if (data.index[k] < num_feature) row[data.index[k]] = data.value[k];
    }
  }
}

}  // namespace

DenseRows DenseRows::From(const DataSet& data, uint32_t num_feature, int nthread) {
  DenseRows out;
  out.num_feature = num_feature;
  const int64_t num_rows = static_cast<int64_t>(data.NumRows());
  out.values.resize(num_rows * (static_cast<std::size_t>(num_feature) + 1));
  FillDenseRows(data, num_feature, 0, num_rows, nthread, out.values.data());
  return out;
}

DenseRows DenseRows::Take(DataSet* data, uint32_t num_feature, int nthread, uint64_t block_rows) {
  RB_CHECK(block_rows > 0);
  DenseRows out;
  out.num_feature = num_feature;
  const uint64_t num_rows = data->NumRows();
  out.values.resize(num_rows * (static_cast<std::size_t>(num_feature) + 1));
  for (uint64_t begin = 0; begin < num_rows; begin += block_rows) {
    const uint64_t end = std::min(num_rows, begin + block_rows);
    FillDenseRows(*data, num_feature, static_cast<int64_t>(begin), static_cast<int64_t>(end),
                  nthread, out.values.data());
    // The entries of the rows before `end` are read no more.
    const uint64_t done = data->row_ptr[end];
    ReleasePages(data->index.data(), data->index.data() + done);
    ReleasePages(data->value.data(), data->value.data() + done);
  }
  std::vector<uint32_t>().swap(data->index);
  std::vector<float>().swap(data->value);
  return out;
}

namespace {

// TreeWalker's lockstep walk over CodedRows: a node sends a row left when its code is at most the
// node's threshold (the index of split_cond in E_f), or when it is missing and the node's default
// is left.
class CodedWalker {
 public:
  // False where a split is categorical or its split_cond is not in its feature's E_f.
  bool Init(const RegTree& tree, uint32_t num_feature, const HistogramCuts& cuts) {
    const std::vector<int> depth = NodeDepths(tree);
    const int n = tree.NumNodes();
    nodes_.assign(n, Node{});
    for (int nid = 0; nid < n; ++nid) {
      if (depth[nid] < 0) continue;  // not reached from the root
      const TreeNode& x = tree[nid];
      depth_ = std::max(depth_, depth[nid]);
      if (x.IsLeaf()) {
        nodes_[nid] = Node{num_feature, 0, {nid, nid}};
        continue;
      }
      if (x.is_cat || x.feature >= cuts.NumFeatures()) return false;
      const std::vector<float> bounds = CodedRows::Bounds(cuts, x.feature);
      const auto at = std::lower_bound(bounds.begin(), bounds.end(), x.split_cond);
      if (at == bounds.end() || !(*at == x.split_cond)) return false;
      // A feature the rows do not have reads the pad (kMissing), as TreeWalker's reads NaN.
      const uint32_t column = x.feature < num_feature ? x.feature : num_feature;
      nodes_[nid] = Node{column | (x.default_left ? 1u << 31 : 0u),
                         static_cast<uint32_t>(at - bounds.begin()),
                         {x.right, x.left}};
    }
    MakeHeap(tree, num_feature);
    return true;
  }

  // The leaves of rows [0, n), n <= TreeWalker::kMaxRows, row i at rows + i * stride.
  void Leaves(const uint16_t* rows, std::size_t stride, int n, int* leaves) const {
    if (n == TreeWalker::kMaxRows) return Walk<TreeWalker::kMaxRows>(rows, stride, n, leaves);
    Walk<0>(rows, stride, n, leaves);
  }

#if defined(__x86_64__) && defined(__GNUC__)
  // Rows a LeavesAvx512 call takes: four groups of 16 lanes, walked level by level together, so
  // that one group's gathers wait while the others' run.
  static constexpr int kVectorRows = 64;
  // Whether LeavesAvx512 serves this tree (the heap below was made).
  bool HasHeap() const { return !heap_.empty(); }
  // 16 ints at base[index] (index * 4 bytes, or * 2 for Gather16); the masked form with a zero
  // source, as the plain one leaves GCC 12 warning of an uninitialized source.
  __attribute__((target("avx512f"))) static __m512i Gather(__m512i index, const int* base) {
    return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), 0xffff, index, base, 4);
  }
  __attribute__((target("avx512f"))) static __m512i Gather16(__m512i index, const int* base) {
    return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), 0xffff, index, base, 2);
  }
  // Leaves' results for rows [0, kVectorRows), row i at rows + i * stride, by AVX-512 gathers
  // over the heap. Reads 2 bytes past the last row's last column: the caller keeps a row after.
  __attribute__((target("avx512f,avx512bw,avx512dq"))) void LeavesAvx512(const uint16_t* rows,
                                                                         std::size_t stride,
                                                                         int* leaves) const {
    constexpr int kGroups = kVectorRows / 16;
    const __m512i lane =
        _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                           _mm512_set1_epi32(static_cast<int>(stride)));
    const __m512i column_mask = _mm512_set1_epi32(kHeapColumns - 1);
    const __m512i code_mask = _mm512_set1_epi32(0xffff);
    const __m512i missing = _mm512_set1_epi32(CodedRows::kMissing);
    const __m512i default_left = _mm512_set1_epi32(kHeapColumns);
    const __m512i one = _mm512_set1_epi32(1), two = _mm512_set1_epi32(2);
    __m512i at[kGroups], first[kGroups];
    for (int g = 0; g < kGroups; ++g) {
      at[g] = _mm512_setzero_si512();
      first[g] = _mm512_add_epi32(lane, _mm512_set1_epi32(static_cast<int>(16 * g * stride)));
    }
    const int* heap = heap_.data();
    const int* codes = reinterpret_cast<const int*>(rows);
    for (int d = 0; d < depth_; ++d) {
#pragma GCC unroll 4
      for (int g = 0; g < kGroups; ++g) {
        const __m512i node = Gather(at[g], heap);
        const __m512i cell = _mm512_add_epi32(first[g], _mm512_and_si512(node, column_mask));
        const __m512i code = _mm512_and_si512(Gather16(cell, codes), code_mask);
        const __mmask16 left =
            _mm512_cmple_epu32_mask(code, _mm512_maskz_srli_epi32(0xffff, node, 16)) |
            (_mm512_cmpeq_epi32_mask(code, missing) & _mm512_test_epi32_mask(node, default_left));
        // Children of heap node k: 2k + 1 (left) and 2k + 2 (right).
        at[g] = _mm512_add_epi32(_mm512_add_epi32(at[g], at[g]),
                                 _mm512_mask_blend_epi32(left, two, one));
      }
    }
    const int* leaf_of = heap_leaf_.data();
    const __m512i last_level = _mm512_set1_epi32((1 << depth_) - 1);
    for (int g = 0; g < kGroups; ++g) {
      _mm512_storeu_si512(leaves + 16 * g, Gather(_mm512_sub_epi32(at[g], last_level), leaf_of));
    }
  }
#endif

 private:
  // The heap: the tree made complete to depth_, node k's children at 2k + 1 and 2k + 2, each node
  // one word: its column (below kHeapColumns), its default (bit kHeapColumns: left) and its
  // threshold (the top 16 bits). A leaf above depth_ becomes nodes that send every row left
  // (threshold 0xffff), down to depth_, where heap_leaf_ names the leaf of each place.
  static constexpr uint32_t kHeapColumns = 1u << 15;
  static constexpr int kHeapDepth = 12;  // at most 8191 + 4096 words
  void MakeHeap(const RegTree& tree, uint32_t num_feature) {
    if (depth_ > kHeapDepth || num_feature >= kHeapColumns) return;
    heap_.assign((std::size_t{1} << depth_) - 1, 0);
    heap_leaf_.assign(std::size_t{1} << depth_, 0);
    Place(tree, 0, 0, 0);
  }
  // Heap place k at depth d holds node nid (a leaf fills its whole subtree).
  void Place(const RegTree& tree, int nid, uint32_t k, int d) {
    if (d == depth_) {
      heap_leaf_[k - ((1u << depth_) - 1)] = nid;
      return;
    }
    const Node& x = nodes_[nid];
    if (tree[nid].IsLeaf()) {
      heap_[k] = static_cast<int32_t>(0xffffu << 16);
      Place(tree, nid, 2 * k + 1, d + 1);
      Place(tree, nid, 2 * k + 2, d + 1);
      return;
    }
    const uint32_t column = x.feature & 0x7fffffffu;
    heap_[k] =
        static_cast<int32_t>(column | (x.feature >> 31 ? kHeapColumns : 0u) | (x.threshold << 16));
    Place(tree, x.child[1], 2 * k + 1, d + 1);
    Place(tree, x.child[0], 2 * k + 2, d + 1);
  }
  std::vector<int32_t> heap_;
  std::vector<int32_t> heap_leaf_;

  struct Node {
    uint32_t feature = 0;  // low 31 bits: the column (num_feature: the pad); top bit: default left
    uint32_t threshold = 0;     // left when the code is at most this (kMissing never is)
    int32_t child[2] = {0, 0};  // [0] right, [1] left
  };
  template <int kRows>
  void Walk(const uint16_t* rows, std::size_t stride, int n, int* leaves) const {
    const int rows_walked = kRows > 0 ? kRows : n;
    const Node* nodes = nodes_.data();
    int nid[TreeWalker::kMaxRows] = {};
    for (int d = 0; d < depth_; ++d) {
#pragma GCC unroll 8
      for (int i = 0; i < rows_walked; ++i) {
        const Node& x = nodes[nid[i]];
        const uint32_t code = rows[i * stride + (x.feature & 0x7fffffffu)];
        const bool left =
            (code <= x.threshold) | ((code == CodedRows::kMissing) & (x.feature >> 31));
        nid[i] = x.child[left];
      }
    }
    for (int i = 0; i < rows_walked; ++i) leaves[i] = nid[i];
  }
  std::vector<Node> nodes_;
  int depth_ = 0;
};

}  // namespace

std::vector<float> CodedRows::Bounds(const HistogramCuts& cuts, uint32_t f) {
  std::vector<float> bounds = {cuts.min_values[f]};
  bounds.insert(bounds.end(), cuts.values.begin() + cuts.ptr[f],
                cuts.values.begin() + cuts.ptr[f + 1]);
  return bounds;
}

uint16_t CodedRows::Code(const HistogramCuts& cuts, uint32_t f, float v) {
  if (v != v) return kMissing;
  if (!(v >= cuts.min_values[f])) return 0;
  const float* first = cuts.values.data() + cuts.ptr[f];
  const float* last = cuts.values.data() + cuts.ptr[f + 1];
  return static_cast<uint16_t>(1 + (std::upper_bound(first, last, v) - first));
}

bool CodedRows::Serves(const HistogramCuts& cuts) {
  if (!cuts.is_cat.empty() &&
      std::any_of(cuts.is_cat.begin(), cuts.is_cat.end(), [](uint8_t c) { return c != 0; })) {
    return false;
  }
  for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) {
    if (cuts.FeatureBins(f) + 1 >= kMissing) return false;
    const std::vector<float> bounds = CodedRows::Bounds(cuts, f);
    if (std::any_of(bounds.begin(), bounds.end(), [](float x) { return x != x; }) ||
        !std::is_sorted(bounds.begin(), bounds.end())) {
      return false;
    }
  }
  return true;
}

CodedRows CodedRows::From(const DenseRows& rows, const HistogramCuts& cuts, int nthread) {
  RB_CHECK(Serves(cuts));
  CodedRows out;
  out.num_feature = rows.num_feature;
  const std::size_t width = static_cast<std::size_t>(rows.num_feature) + 1;
  const uint32_t coded = std::min(rows.num_feature, cuts.NumFeatures());
  const int64_t num_rows = static_cast<int64_t>(rows.NumRows());
  out.codes.resize(num_rows * width);
#pragma omp parallel for schedule(static) num_threads(Threads(nthread))
  for (int64_t r = 0; r < num_rows; ++r) {
    const float* in = rows.values.data() + r * width;
    uint16_t* code = out.codes.data() + r * width;
    for (std::size_t f = 0; f < width; ++f) {
      code[f] = f >= coded ? kMissing : Code(cuts, static_cast<uint32_t>(f), in[f]);
    }
  }
  return out;
}

bool AddTreeMargins(const std::vector<const RegTree*>& trees, const std::vector<int>& groups,
                    const CodedRows& rows, const HistogramCuts& cuts, int stride, float* margins,
                    int nthread) {
  RB_CHECK(trees.size() == groups.size());
  std::vector<CodedWalker> walkers(trees.size());
  for (std::size_t t = 0; t < trees.size(); ++t) {
    if (!walkers[t].Init(*trees[t], rows.num_feature, cuts)) return false;
  }
  const std::size_t width = static_cast<std::size_t>(rows.num_feature) + 1;
  const uint64_t num_rows = rows.NumRows();
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx512 = __builtin_cpu_supports("avx512f") &&
                             __builtin_cpu_supports("avx512bw") &&
                             __builtin_cpu_supports("avx512dq");
  if (avx512) {
    constexpr int kBlock = CodedWalker::kVectorRows;
    // Blocks with a row after them (the gathers read 2 bytes past a block's last row).
    const uint64_t vector_rows = num_rows > 0 ? (num_rows - 1) / kBlock * kBlock : 0;
#pragma omp parallel num_threads(Threads(nthread))
    {
      // One contiguous share of the blocks a thread, as AddMatrixMargins.
      const uint64_t blocks = vector_rows / kBlock;
      const uint64_t t = omp_get_thread_num(), threads = omp_get_num_threads();
      int leaves[kBlock];
      for (uint64_t b = blocks * t / threads; b < blocks * (t + 1) / threads; ++b) {
        const uint64_t begin = b * kBlock;
        const uint16_t* block = rows.codes.data() + begin * width;
        for (std::size_t k = 0; k < walkers.size(); ++k) {
          if (walkers[k].HasHeap()) {
            walkers[k].LeavesAvx512(block, width, leaves);
          } else {
            for (int i = 0; i < kBlock; i += kRows) {
              walkers[k].Leaves(block + i * width, width, kRows, leaves + i);
            }
          }
          for (int i = 0; i < kBlock; ++i) {
            margins[(begin + i) * stride + groups[k]] += (*trees[k])[leaves[i]].leaf_value;
          }
        }
      }
    }
    AddMatrixMargins(walkers, trees, groups, rows.codes.data() + vector_rows * width, width,
                     num_rows - vector_rows, stride, margins + vector_rows * stride, nthread);
    return true;
  }
#endif
  AddMatrixMargins(walkers, trees, groups, rows.codes.data(), width, num_rows, stride, margins,
                   nthread);
  return true;
}

void AddTreeMargins(const std::vector<const RegTree*>& trees, const std::vector<int>& groups,
                    const DenseRows& rows, int stride, float* margins, int nthread) {
  const std::vector<TreeWalker> walkers = Walkers(trees, groups, rows.num_feature);
  AddMatrixMargins(walkers, trees, groups, rows.values.data(),
                   static_cast<std::size_t>(rows.num_feature) + 1, rows.NumRows(), stride, margins,
                   nthread);
}

std::vector<float> Model::InitialMargins(uint64_t rows) const {
  const uint64_t groups = static_cast<uint64_t>(std::max(num_groups, 0));
  CheckAllocation(
      MulSat(MulSat(rows, groups), sizeof(float)), "the margin buffer",
      std::to_string(rows) + " rows x " + std::to_string(groups) + " output groups x 4 bytes",
      "the model's output groups (num_class) are too many for this data");
  std::vector<float> margins(rows * num_groups, base_margin);
  if (base_margins.empty()) return margins;
  RB_CHECK(base_margins.size() == static_cast<std::size_t>(num_groups));
  for (std::size_t i = 0; i < margins.size(); ++i) margins[i] = base_margins[i % num_groups];
  return margins;
}

std::size_t TreesForRounds(const Model& model, int num_rounds) {
  if (num_rounds < 0 || num_rounds > model.num_rounds) {
    RB_FAIL("cannot predict with " << num_rounds << " rounds: the model has " << model.num_rounds
                                   << " (use 0 for all, or a number up to " << model.num_rounds
                                   << ")");
  }
  RB_CHECK(model.num_groups >= 1);
  RB_CHECK(model.tree_group.size() == model.trees.size());
  const int rounds = num_rounds == 0 ? model.num_rounds : num_rounds;
  return std::min(model.trees.size(), static_cast<std::size_t>(rounds) * model.num_groups);
}

std::vector<float> PredictMargin(const Model& model, const DataSet& data, int num_rounds,
                                 int nthread) {
  const size_t num_trees = TreesForRounds(model, num_rounds);
  for (size_t t = 0; t < num_trees; ++t) {
    RB_CHECK(model.tree_group[t] >= 0 && model.tree_group[t] < model.num_groups);
  }
  std::vector<const RegTree*> trees;
  for (size_t t = 0; t < num_trees; ++t) trees.push_back(&model.trees[t]);
  const std::vector<int> groups(model.tree_group.begin(), model.tree_group.begin() + num_trees);
  std::vector<float> margins = model.InitialMargins(data.NumRows());
  AddTreeMargins(trees, groups, model.num_feature, data, model.num_groups, margins.data(), nthread);
  return margins;
}

std::vector<float> PredictMargin(const std::string& device, const Model& model, const DataSet& data,
                                 int num_rounds, int nthread) {
  if (device == "cpu") return PredictMargin(model, data, num_rounds, nthread);
  return PredictMarginOnDevice(device, model, data, num_rounds);
}

}  // namespace ringboost
