// Prediction: the trees' leaf values summed per row. predict.cc walks the rows on the CPU
// (TreeWalker, model/tree.h), predict.cu on a GPU (predict_device.h); PredictMargin(device, ...)
// is the one place prediction picks between them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/memory.h"
#include "data/data.h"
#include "model/model.h"
#include "model/tree.h"
#include "tree/bins/quantile.h"

namespace ringboost {

// The number of trees of the first `num_rounds` rounds (0 = all); throws Error when out of range.
std::size_t TreesForRounds(const Model& model, int num_rounds);

// Margins (rows x num_groups, row-major) of the first `num_rounds` rounds (0 = all) on the CPU.
std::vector<float> PredictMargin(const Model& model, const DataSet& data, int num_rounds,
                                 int nthread);

// The same margins on `device`: the CPU's PredictMargin with `nthread` threads for "cpu", the
// GPU's kernel (the same bits) for "cuda" and "cuda:N".
std::vector<float> PredictMargin(const std::string& device, const Model& model, const DataSet& data,
                                 int num_rounds, int nthread);

// Adds trees[t]'s leaf value of each row of `data` to margins[row * stride + groups[t]], in tree
// order. Features from num_feature on are missing (the trees were trained on fewer).
void AddTreeMargins(const std::vector<const RegTree*>& trees, const std::vector<int>& groups,
                    uint32_t num_feature, const DataSet& data, int stride, float* margins,
                    int nthread);

// A data set's values as a row-major matrix, what TreeWalker reads: num_feature + 1 columns,
// NaN where missing and in the last column. For sets walked every round (eval sets) when most
// cells hold a value: no CSR to scatter and clear per block, half its bytes.
struct DenseRows {
  uint32_t num_feature = 0;
  std::vector<float, UninitializedAllocator<float>> values;  // pages resident as they are filled
  uint64_t NumRows() const { return values.size() / (static_cast<uint64_t>(num_feature) + 1); }

  // Rows Take fills between two releases of the CSR it consumes.
  static constexpr uint64_t kTakeBlockRows = uint64_t{1} << 14;

  // Whether the matrix of `data` would take at most the bytes of its CSR entries.
  static bool Pays(const DataSet& data, uint32_t num_feature);
  static DenseRows From(const DataSet& data, uint32_t num_feature, int nthread);
  // From, consuming data->index and data->value (empty afterwards; row_ptr and the rest stay): the
  // CSR's pages are released block by block of `block_rows` rows as the matrix fills, so the
  // peak is about the larger of the two, not their sum.
  static DenseRows Take(DataSet* data, uint32_t num_feature, int nthread,
                        uint64_t block_rows = kTakeBlockRows);
};
void AddTreeMargins(const std::vector<const RegTree*>& trees, const std::vector<int>& groups,
                    const DenseRows& rows, int stride, float* margins, int nthread);

// Dense rows as codes against the training cuts, for an eval set walked by the trees trained on
// those cuts: with E_f the feature's min_values[f] followed by its cuts (ascending), a value v
// becomes #{x in E_f : x <= v} (0 to bins + 1; NaN and the pad column kMissing). Such a tree
// splits f at split_cond = E_f[s], and since E_f ascends, v < E_f[s] exactly when v's code is at
// most s: the float walk's leaves for every value, inside the training range or not, from half
// the bytes of DenseRows.
struct CodedRows {
  static constexpr uint16_t kMissing = 0xffff;
  uint32_t num_feature = 0;
  std::vector<uint16_t, UninitializedAllocator<uint16_t>> codes;  // num_feature + 1 columns
  uint64_t NumRows() const { return codes.size() / (static_cast<uint64_t>(num_feature) + 1); }

  // Whether the cuts allow codes: no categorical feature, every E_f ascending and without NaN,
  // every feature's bins + 1 below kMissing.
  static bool Serves(const HistogramCuts& cuts);
  // Feature f's E_f: min_values[f], then its cuts.
  static std::vector<float> Bounds(const HistogramCuts& cuts, uint32_t f);
  // The code of value v of feature f (kMissing for NaN), for cuts that Serves.
  static uint16_t Code(const HistogramCuts& cuts, uint32_t f, float v);
  // Features from cuts.NumFeatures() on (never split on by a tree of these cuts) are kMissing.
  static CodedRows From(const DenseRows& rows, const HistogramCuts& cuts, int nthread);
};
// Adds the trees' leaf values as AddTreeMargins does from `rows` coded against `cuts`. False, with
// nothing added, when some tree splits at a value that is not one of its feature's E_f (it was not
// grown on these cuts).
bool AddTreeMargins(const std::vector<const RegTree*>& trees, const std::vector<int>& groups,
                    const CodedRows& rows, const HistogramCuts& cuts, int stride, float* margins,
                    int nthread);

// A sparse set's entries by feature, coded as CodedRows codes them (against the training cuts),
// for an eval set whose rows hold few of the features (no DenseRows). A tree walks it level by
// level: each thread's share of the rows takes its nodes' default children, then the entries of
// each split node's column in that share decide, so a round costs the rows times the depth plus
// the split features' entries, where the CSR walk reads every entry of every row (a 1M x 10k
// set's 200k eval rows, ~40 entries each: most of them in features the tree does not split on).
// Entries of features from cuts.NumFeatures() on (never split on by these cuts' trees) are left
// out: missing, as every feature a row does not hold.
struct CodedColumns {
  uint64_t num_rows = 0;
  std::vector<uint64_t> ptr;  // NumFeatures() + 1 offsets into rows and codes
  std::vector<uint32_t, UninitializedAllocator<uint32_t>> rows;  // ascending within a feature
  std::vector<uint16_t, UninitializedAllocator<uint16_t>> codes;
  uint32_t NumFeatures() const { return ptr.empty() ? 0 : static_cast<uint32_t>(ptr.size() - 1); }

  // From data's CSR, consuming data->index and data->value (empty afterwards; row_ptr and the
  // rest stay). The cuts must serve codes (CodedRows::Serves).
  static CodedColumns Take(DataSet* data, const HistogramCuts& cuts, int nthread);
};
// Adds the trees' leaf values as AddTreeMargins does from `columns` coded against `cuts`. False,
// with nothing added, when some tree splits at a value that is not one of its feature's E_f, on
// a categorical feature or on one the cuts do not have.
bool AddTreeMargins(const std::vector<const RegTree*>& trees, const std::vector<int>& groups,
                    const CodedColumns& columns, const HistogramCuts& cuts, int stride,
                    float* margins, int nthread);

}  // namespace ringboost
