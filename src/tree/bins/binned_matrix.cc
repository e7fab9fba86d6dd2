// Building the binned matrix (binned_matrix.h states the layouts). Threads over rows; every
// value's bin comes from a search of bin_search.h, the same answer as HistogramCuts::SearchBin.
#include "tree/bins/binned_matrix.h"

#include <omp.h>

#include <algorithm>

#include "common/error.h"
#include "common/memory.h"
#include "tree/bins/bin_search.h"

namespace ringboost {
namespace {

int NumThreads(int nthread) { return nthread > 0 ? nthread : omp_get_max_threads(); }

using detail::BlockSearch;
using detail::PaddedBinarySearch;

// The dense columns: the features of row 0 (below num_features) when every row stores exactly
// the same features, so that no value is missing in them and every other feature is empty.
// Empty when the data is not dense in that sense.
std::vector<uint32_t> DenseColumns(const DataSet& data, uint32_t num_features, int nthread) {
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  if (rows == 0) return {};
  const uint64_t width = data.row_ptr[1];
  const uint32_t* first = data.index.data();
  bool dense = true;
#pragma omp parallel for num_threads(nthread) reduction(&& : dense)
  for (int64_t i = 1; i < rows; ++i) {
    const uint64_t begin = data.row_ptr[i];
    if (data.row_ptr[i + 1] - begin != width) {
      dense = false;
      continue;
    }
    dense = dense && std::equal(first, first + width, data.index.data() + begin);
  }
  if (!dense) return {};
  std::vector<uint32_t> columns;
  for (uint64_t j = 0; j < width; ++j) {
    if (first[j] < num_features) columns.push_back(first[j]);
  }
  if (columns.size() != width) return {};  // entries beyond the cuts: take the sparse path
  return columns;
}

// Rows in blocks, features outer within a block: the searches of one feature over a block take
// the same steps, so they overlap in the pipeline instead of waiting on one another.
template <typename Bin>
void FillDense(const DataSet& data, const PaddedBinarySearch& searcher,
               const std::vector<uint32_t>& columns, int nthread, std::vector<Bin>* out) {
  const uint32_t nf = static_cast<uint32_t>(columns.size());
  constexpr int64_t kBlockRows = 256;
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  out->resize(static_cast<std::size_t>(rows) * nf);
  Bin* bins = out->data();
  const float* values = data.value.data();  // dense: entry (i, c) is at i * nf + c
#pragma omp parallel for num_threads(nthread) schedule(static)
  for (int64_t block = 0; block < (rows + kBlockRows - 1) / kBlockRows; ++block) {
    const std::size_t begin = block * kBlockRows;
    const std::size_t end = std::min<std::size_t>(begin + kBlockRows, rows);
    for (uint32_t c = 0; c < nf; ++c) {
      const uint32_t f = columns[c];
      for (std::size_t at = begin * nf + c; at < end * nf; at += nf) {
        bins[at] = static_cast<Bin>(searcher.LocalBin(f, values[at]));
      }
    }
  }
}

// Column-major copy of a row-major rows x width matrix; threads over blocks of rows. On huge
// pages: the partition reads it at a node's scattered rows, and on 4 KiB pages each such read
// past the first levels missed the TLB too.
template <typename Bin>
void Transpose(const std::vector<Bin>& rows_major, std::size_t width, int nthread,
               std::vector<Bin>* out) {
  const std::size_t rows = width == 0 ? 0 : rows_major.size() / width;
  ResizeOnHugePages(out, rows_major.size());
  constexpr std::size_t kBlock = 4096;
#pragma omp parallel for num_threads(nthread) schedule(static)
  for (std::size_t b = 0; b < (rows + kBlock - 1) / kBlock; ++b) {
    const std::size_t end = std::min(rows, (b + 1) * kBlock);
    for (std::size_t c = 0; c < width; ++c) {
      for (std::size_t i = b * kBlock; i < end; ++i)
        (*out)[c * rows + i] = rows_major[i * width + c];
    }
  }
}

// Row offsets of the entries of features < num_features: a copy of data.row_ptr unless some
// entries lie beyond num_features (they are dropped).
std::vector<uint64_t> SparseRowPtr(const DataSet& data, uint32_t num_features, int nthread) {
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  const int64_t nnz = static_cast<int64_t>(data.NumNonZero());
  bool all_kept = true;
#pragma omp parallel for num_threads(nthread) reduction(&& : all_kept)
  for (int64_t k = 0; k < nnz; ++k) all_kept = all_kept && data.index[k] < num_features;
  if (all_kept) return data.row_ptr;
  std::vector<uint64_t> row_ptr(rows + 1, 0);
#pragma omp parallel for num_threads(nthread)
  for (int64_t i = 0; i < rows; ++i) {
    uint64_t kept = 0;
    for (uint64_t k = data.row_ptr[i]; k < data.row_ptr[i + 1]; ++k) {
      kept += data.index[k] < num_features;
    }
    row_ptr[i + 1] = kept;
  }
  for (int64_t i = 0; i < rows; ++i) row_ptr[i + 1] += row_ptr[i];
  return row_ptr;
}

// Every entry kept (the usual case): output k is input k. A software pipeline hides the two cache
// misses of each search on a large cut table: the root line of entry k + 2L is prefetched, the
// block of entry k + L is found and its line prefetched, and entry k is finished.
void FillSparseAllKept(const DataSet& data, const HistogramCuts& cuts, const BlockSearch& search,
                       int nthread, uint32_t* bins) {
  constexpr uint64_t kLag = 8;
  const uint64_t nnz = data.NumNonZero();
  const uint32_t* index = data.index.data();
  const float* value = data.value.data();
#pragma omp parallel num_threads(nthread)
  {
    const uint64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    const uint64_t begin = nnz * t / nt, end = nnz * (t + 1) / nt;
    uint32_t block[kLag];
    const auto start = [&](uint64_t k) {
      block[k % kLag] = search.Block(index[k], value[k]);
      search.PrefetchBlock(index[k], block[k % kLag]);
    };
    for (uint64_t k = begin; k < std::min(begin + kLag, end); ++k) start(k);
    for (uint64_t k = begin; k < end; ++k) {
      const uint32_t mine = block[k % kLag];
      if (k + 2 * kLag < end) search.PrefetchRoot(index[k + 2 * kLag]);
      if (k + kLag < end) start(k + kLag);
      bins[k] = cuts.ptr[index[k]] + search.InBlock(index[k], mine, value[k]);
    }
  }
}

void FillSparse(const DataSet& data, const HistogramCuts& cuts, const BlockSearch& search,
                int nthread, const std::vector<uint64_t>& row_ptr, BinnedMatrix::SparseBins* out) {
  ResizeOnHugePages(out, row_ptr.back());
  if (row_ptr.back() == data.NumNonZero()) {
    FillSparseAllKept(data, cuts, search, nthread, out->data());
    return;
  }
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  const uint32_t nf = cuts.NumFeatures();
  uint32_t* bins = out->data();
#pragma omp parallel for num_threads(nthread) schedule(static)
  for (int64_t i = 0; i < rows; ++i) {
    uint64_t pos = row_ptr[i];
    for (uint64_t k = data.row_ptr[i]; k < data.row_ptr[i + 1]; ++k) {
      const uint32_t f = data.index[k];
      if (f < nf) bins[pos++] = cuts.ptr[f] + search.LocalBin(f, data.value[k]);
    }
  }
}

// Lays out the entries of CSR rows [0, rows) feature by feature, rows ascending (SparseColumns):
// a counting pass over each block of rows (one a thread), the columns' offsets into *ptr, then
// size(total entries) and put(at, row, k, f) for each entry k of a feature f < nf, at its place.
// feature_of(k) gives entry k's feature (nf or more: dropped). The blocks write disjoint places.
template <typename FeatureOf, typename Size, typename Put>
void ScatterByFeature(const uint64_t* row_ptr, uint64_t rows, uint32_t nf, int nthread,
                      const FeatureOf& feature_of, const Size& size, const Put& put,
                      std::vector<uint64_t>* ptr) {
  std::vector<uint64_t> cursor(static_cast<std::size_t>(nthread) * nf, 0);
  auto block_rows = [&](int b) {
    return std::make_pair(rows * b / nthread, rows * (b + 1) / nthread);
  };
#pragma omp parallel for num_threads(nthread) schedule(static, 1)
  for (int b = 0; b < nthread; ++b) {
    uint64_t* count = cursor.data() + static_cast<std::size_t>(b) * nf;
    const auto [begin, end] = block_rows(b);
    for (uint64_t k = row_ptr[begin]; k < row_ptr[end]; ++k) {
      const uint32_t f = feature_of(k);
      if (f < nf) ++count[f];
    }
  }
  ptr->assign(nf + 1, 0);
  uint64_t sum = 0;
  for (uint32_t f = 0; f < nf; ++f) {
    (*ptr)[f] = sum;
    for (int b = 0; b < nthread; ++b) {
      const uint64_t count = cursor[static_cast<std::size_t>(b) * nf + f];
      cursor[static_cast<std::size_t>(b) * nf + f] = sum;
      sum += count;
    }
  }
  (*ptr)[nf] = sum;
  size(sum);
#pragma omp parallel for num_threads(nthread) schedule(static, 1)
  for (int b = 0; b < nthread; ++b) {
    uint64_t* next = cursor.data() + static_cast<std::size_t>(b) * nf;
    const auto [begin, end] = block_rows(b);
    for (uint64_t row = begin; row < end; ++row) {
      for (uint64_t k = row_ptr[row]; k < row_ptr[row + 1]; ++k) {
        const uint32_t f = feature_of(k);
        if (f < nf) put(next[f]++, row, k, f);
      }
    }
  }
}

// The sparse layout by column, straight from the values: each entry's row and value copied to
// its column, then each column binned with its own feature's cuts, which stay in cache (the
// row-major binning searches every feature's in turn).
void FillColumns(const DataSet& data, const HistogramCuts& cuts, int nthread, SparseColumns* out) {
  const uint32_t* index = data.index.data();
  const float* value = data.value.data();
  std::vector<float, UninitializedAllocator<float>> values;
  ScatterByFeature(
      data.row_ptr.data(), data.NumRows(), cuts.NumFeatures(), nthread,
      [index](uint64_t k) { return index[k]; },
      [&](uint64_t total) {
        ResizeOnHugePages(&out->rows, total);
        ResizeOnHugePages(&values, total);
      },
      [&](uint64_t at, uint64_t row, uint64_t k, uint32_t) {
        out->rows[at] = static_cast<uint32_t>(row);
        values[at] = value[k];
      },
      &out->ptr);
  ResizeOnHugePages(&out->bins, values.size());
  const BlockSearch search(cuts);
  const int64_t nf = cuts.NumFeatures();
#pragma omp parallel for num_threads(nthread) schedule(dynamic, 16)
  for (int64_t f = 0; f < nf; ++f) {
    for (uint64_t k = out->ptr[f]; k < out->ptr[f + 1]; ++k) {
      out->bins[k] = static_cast<uint16_t>(search.LocalBin(static_cast<uint32_t>(f), values[k]));
    }
  }
}

// Bundled rows: each stored value's bin at its bundle's column, offset by its member offset; in a
// row where a column already holds a member (a conflict, allowed by max_conflict_rate > 0), the
// first, of the lowest feature id, stays.
template <typename Bin>
void FillBundled(const DataSet& data, const PaddedBinarySearch& searcher,
                 const std::vector<int32_t>& column_of, const std::vector<uint32_t>& member_offset,
                 uint32_t num_columns, int nthread, std::vector<Bin>* out) {
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  const uint32_t nf = static_cast<uint32_t>(column_of.size());
  out->assign(static_cast<std::size_t>(rows) * num_columns, 0);
  Bin* bins = out->data();
#pragma omp parallel for num_threads(nthread) schedule(static)
  for (int64_t i = 0; i < rows; ++i) {
    Bin* row = bins + static_cast<std::size_t>(i) * num_columns;
    for (uint64_t k = data.row_ptr[i]; k < data.row_ptr[i + 1]; ++k) {
      const uint32_t f = data.index[k];
      if (f >= nf || column_of[f] < 0 || row[column_of[f]] != 0) continue;
      row[column_of[f]] = static_cast<Bin>(member_offset[f] + searcher.LocalBin(f, data.value[k]));
    }
  }
}

}  // namespace

void BinnedMatrix::InitBundles(const FeatureBundles& bundles, const HistogramCuts& cuts) {
  const uint32_t nf = cuts.NumFeatures();
  layout_ = Layout::kDense;
  bundled_ = true;
  column_of_.assign(nf, -1);
  member_offset_.assign(nf, 0);
  uint32_t offset = 0, max_bins = 0;
  for (std::size_t c = 0; c < bundles.members.size(); ++c) {
    column_offsets_.push_back(offset);
    uint32_t bins = 1;  // 0: no member present
    for (uint32_t f : bundles.members[c]) {
      RB_CHECK_MSG(f < nf && column_of_[f] < 0, "feature " << f << " bundled twice");
      column_of_[f] = static_cast<int32_t>(c);
      member_offset_[f] = bins;
      bins += cuts.FeatureBins(f);
    }
    max_bins = std::max(max_bins, bins);
    offset += bins;
  }
  RB_CHECK_MSG(max_bins <= 65536, "a bundle has " << max_bins << " bins; at most 65536 fit");
  bin_bytes_ = max_bins <= 256 ? 1 : 2;
  hist_bins_ = offset + 1;
  global_to_hist_.assign(cuts.TotalBins(), offset);
  for (uint32_t f = 0; f < nf; ++f) {
    if (column_of_[f] < 0) continue;
    const uint32_t first = column_offsets_[column_of_[f]] + member_offset_[f];
    for (uint32_t b = 0; b < cuts.FeatureBins(f); ++b) global_to_hist_[cuts.ptr[f] + b] = first + b;
  }
}

bool SparseColumns::Fit(const HistogramCuts& cuts, uint64_t num_rows) {
  if (num_rows >= (uint64_t{1} << 32)) return false;
  for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) {
    if (cuts.FeatureBins(f) > 0x10000u) return false;
  }
  return true;
}

BinnedMatrix BinnedMatrix::Build(const DataSet& data, const HistogramCuts& cuts, int nthread,
                                 const FeatureBundles* bundles, bool by_column) {
  const int threads = NumThreads(nthread);
  const uint32_t nf = cuts.NumFeatures();
  for (uint32_t f = 0; f < nf; ++f) RB_CHECK_MSG(cuts.FeatureBins(f) >= 1, "feature " << f);
  BinnedMatrix m;
  m.num_rows_ = data.NumRows();
  m.num_features_ = nf;
  m.hist_bins_ = cuts.TotalBins();
  std::vector<uint32_t> columns = DenseColumns(data, nf, threads);
  if (columns.empty() && bundles != nullptr && !bundles->Empty()) {
    const uint64_t entries = MulSat(m.num_rows_, bundles->members.size());
    CheckAllocation(MulSat(entries, 4), "the binned matrix (feature bundles)",
                    std::to_string(entries) + " entries x 4 bytes",
                    "set enable_bundle=false, or use fewer rows a worker (more workers)");
    m.InitBundles(*bundles, cuts);
    const PaddedBinarySearch searcher(cuts);
    if (m.bin_bytes_ == 1) {
      FillBundled(data, searcher, m.column_of_, m.member_offset_, m.NumColumns(), threads,
                  &m.dense8_);
    } else {
      FillBundled(data, searcher, m.column_of_, m.member_offset_, m.NumColumns(), threads,
                  &m.dense16_);
    }
    return m;
  }
  const uint64_t entries =
      columns.empty() ? data.NumNonZero() : MulSat(m.num_rows_, columns.size());
  // At most 4 bytes an entry (2 when dense), with a column-major copy of dense data; sparse by
  // column, 6 (row and local bin) and the values' 4 while they are binned.
  const uint64_t entry_bytes = columns.empty() && by_column ? 10 : 4;
  CheckAllocation(MulSat(entries, entry_bytes), "the binned matrix",
                  std::to_string(entries) + " entries x " + std::to_string(entry_bytes) + " bytes",
                  "use fewer rows or features a worker (more workers)");
  if (!columns.empty()) {
    m.layout_ = Layout::kDense;
    m.dense_columns_ = columns;
    m.column_of_.assign(nf, -1);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      m.column_of_[columns[c]] = static_cast<int32_t>(c);
      m.column_offsets_.push_back(cuts.ptr[columns[c]]);
    }
    uint32_t max_bins = 0;
    for (uint32_t f : columns) max_bins = std::max(max_bins, cuts.FeatureBins(f));
    RB_CHECK_MSG(max_bins <= 65536, "a feature has " << max_bins << " bins; at most 65536 fit");
    if (max_bins <= 256) {
      m.bin_bytes_ = 1;
      FillDense(data, PaddedBinarySearch(cuts), columns, threads, &m.dense8_);
    } else {
      m.bin_bytes_ = 2;
      FillDense(data, PaddedBinarySearch(cuts), columns, threads, &m.dense16_);
    }
  } else {
    m.layout_ = Layout::kSparse;
    m.bin_bytes_ = 4;
    m.row_ptr_ = SparseRowPtr(data, nf, threads);
    if (by_column && SparseColumns::Fit(cuts, m.num_rows_)) {
      FillColumns(data, cuts, threads, &m.columns_);
      m.rows_pending_ = true;
    } else {
      FillSparse(data, cuts, BlockSearch(cuts), threads, m.row_ptr_, &m.sparse_bins_);
    }
  }
  return m;
}

void BinnedMatrix::BuildColumns(int nthread) {
  if (layout_ != Layout::kDense) return;
  const int threads = NumThreads(nthread);
  if (bin_bytes_ == 1) Transpose(dense8_, NumColumns(), threads, &columns8_);
  if (bin_bytes_ == 2) Transpose(dense16_, NumColumns(), threads, &columns16_);
}

// Each thread fills the rows of its block from every column in feature order, so the bins of a
// row ascend as FillSparse lays them out.
void BinnedMatrix::EnsureRows(const HistogramCuts& cuts, int nthread) const {
  if (!rows_pending_) return;
  const int threads = NumThreads(nthread);
  const uint32_t nf = num_features_;
  CheckAllocation(AddSat(MulSat(row_ptr_.back(), 4), MulSat(num_rows_, 8)),
                  "the binned matrix's rows (made from its columns)",
                  std::to_string(row_ptr_.back()) + " entries x 4 bytes + " +
                      std::to_string(num_rows_) + " rows x 8 bytes",
                  "use fewer rows or features a worker (more workers)");
  ResizeOnHugePages(&sparse_bins_, row_ptr_.back());
  std::vector<uint64_t> next(row_ptr_.begin(), row_ptr_.end() - 1);  // each row's next entry
  const uint32_t* rows = columns_.rows.data();
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int b = 0; b < threads; ++b) {
    const uint64_t begin = num_rows_ * b / threads, end = num_rows_ * (b + 1) / threads;
    for (uint32_t f = 0; f < nf; ++f) {
      const uint32_t* last = rows + columns_.ptr[f + 1];
      for (const uint32_t* it = std::lower_bound(rows + columns_.ptr[f], last, begin);
           it != last && *it < end; ++it) {
        sparse_bins_[next[*it]++] = cuts.ptr[f] + columns_.bins[it - rows];
      }
    }
  }
  rows_pending_ = false;
}

SparseColumns BinnedMatrix::TransposeSparse(const HistogramCuts& cuts, int nthread) const {
  RB_CHECK(layout_ == Layout::kSparse && SparseColumns::Fit(cuts, num_rows_));
  const int threads = NumThreads(nthread);
  const uint32_t nf = cuts.NumFeatures();
  const uint32_t* bins = sparse_bins().data();
  SparseColumns out;
  // The columns go on huge pages: scattered over the bench's 10,000 columns, 4 KiB pages cost a
  // TLB miss a store (the copy took 0.66-0.79 s there, 0.38-0.42 s on huge pages).
  // Each entry's feature from a table by global bin, 16 bits a bin where the ids fit (on the
  // bench's sparse set, 2.5M bins, that halved the counting pass).
  auto transpose = [&](auto feature_id) {  // the table's type by a value of it
    std::vector<decltype(feature_id)> bin_feature(cuts.TotalBins());
    for (uint32_t f = 0; f < nf; ++f) {
      std::fill(bin_feature.begin() + cuts.ptr[f], bin_feature.begin() + cuts.ptr[f + 1], f);
    }
    ScatterByFeature(
        row_ptr_.data(), num_rows_, nf, threads,
        [&](uint64_t k) -> uint32_t { return bin_feature[bins[k]]; },
        [&](uint64_t total) {
          ResizeOnHugePages(&out.rows, total);
          ResizeOnHugePages(&out.bins, total);
        },
        [&](uint64_t at, uint64_t row, uint64_t k, uint32_t f) {
          out.rows[at] = static_cast<uint32_t>(row);
          out.bins[at] = static_cast<uint16_t>(bins[k] - cuts.ptr[f]);
        },
        &out.ptr);
  };
  if (nf <= 0x10000u) {
    transpose(uint16_t{0});
  } else {
    transpose(uint32_t{0});
  }
  return out;
}

std::size_t BinnedMatrix::MemoryBytes() const {
  if (layout_ == Layout::kDense) {
    return (dense8_.size() + columns8_.size()) * sizeof(uint8_t) +
           (dense16_.size() + columns16_.size()) * sizeof(uint16_t);
  }
  return row_ptr_.size() * sizeof(uint64_t) + sparse_bins_.size() * sizeof(uint32_t) +
         columns_.ptr.size() * sizeof(uint64_t) + columns_.rows.size() * sizeof(uint32_t) +
         columns_.bins.size() * sizeof(uint16_t);
}

int64_t BinnedMatrix::GetBin(uint64_t row, uint32_t feature, const HistogramCuts& cuts) const {
  RB_CHECK_MSG(row < num_rows_, "row " << row << " of " << num_rows_);
  if (feature >= num_features_) return -1;
  if (layout_ == Layout::kDense) {
    if (column_of_[feature] < 0) return -1;
    const std::size_t at = static_cast<std::size_t>(row) * NumColumns() + column_of_[feature];
    const uint32_t local = (bin_bytes_ == 1 ? dense8_[at] : dense16_[at]) - MemberOffset(feature);
    if (local >= cuts.FeatureBins(feature)) return -1;  // bundled: another member, or none
    return static_cast<int64_t>(cuts.ptr[feature]) + local;
  }
  RB_CHECK_MSG(!rows_pending_, "GetBin on a matrix built by column before EnsureRows()");
  // Global bins are ascending within a row (features ascending, each feature's bins after the
  // previous feature's), so the feature's entry is the first bin >= ptr[feature], if in range.
  const uint32_t* begin = sparse_bins_.data() + row_ptr_[row];
  const uint32_t* end = sparse_bins_.data() + row_ptr_[row + 1];
  const uint32_t* it = std::lower_bound(begin, end, cuts.ptr[feature]);
  if (it == end || *it >= cuts.ptr[feature + 1]) return -1;
  return *it;
}

}  // namespace ringboost
