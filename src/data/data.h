// A worker's rows in compressed sparse row form, and the strict readers that fill it
// (DESIGN.md step 1). Absent entries are missing values; a NaN in the input is missing too and is
// not stored.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ringboost {

struct DataSet {
  std::vector<uint64_t> row_ptr{0};  // NumRows() + 1 offsets into index/value
  std::vector<uint32_t> index;       // feature id of each stored entry, ascending within a row
  std::vector<float> value;          // its value (never NaN)
  std::vector<float> label;          // one per row
  std::vector<float> weight;         // one per row, or empty (= all 1)
  std::vector<uint32_t> group_ptr;   // query groups: offsets of group starts, size groups + 1;
                                     // empty when the data has no groups
  uint32_t num_col = 0;              // 1 + the largest feature id seen (0 for no entries)
  uint64_t first_row = 0;            // global id of row 0 (distributed: exclusive scan)
  uint64_t first_group = 0;          // global id of query group 0 (likewise)
  std::string name;                  // the URI it came from, for messages
  // survival:aft's interval of each row's survival time, [lower, upper] with 0 <= lower <= upper
  // and upper possibly +inf (right-censored; lower 0: left-censored), from `<file>.lower_bound`
  // and `<file>.upper_bound` or from the CSV columns the URI names; both empty when the data has
  // none.
  std::vector<float> label_lower_bound;
  std::vector<float> label_upper_bound;
  std::vector<uint32_t> categorical;  // feature ids the URI names categorical (ascending)
  // How the LibSVM ids were read: 1 = as 1-based (each stored one less than written), 0 = as
  // written (CSV: always). `id_base_detected`: indexing_mode -1 chose it from this reader's
  // rows alone (1 unless some id was 0), which other parts of the data may not agree with
  // (ReadIdsAsWritten).
  int id_base = 0;
  bool id_base_detected = false;

  uint64_t NumRows() const { return row_ptr.size() - 1; }
  uint64_t NumNonZero() const { return index.size(); }
  float Weight(uint64_t row) const { return weight.empty() ? 1.0f : weight[row]; }
};

// How the readers turn a decimal into a float (the parameter parse_float; data/number.h):
// correctly rounded, or as XGBoost's own text readers (dmlc-core) round it.
enum class FloatReading { kExact, kXGBoost };

struct LoadOptions {
  int part = 0;  // this reader takes byte range `part` of `num_parts` (line-aligned)
  int num_parts = 1;
  int indexing_mode = 0;  // LibSVM ids: 0 = 0-based (XGBoost's default), 1 = 1-based, -1 = detect
  // What detection (indexing_mode -1, from the options or the URI) takes instead of looking at
  // the rows: 0 or 1, the base the training data's ids were read with, so that every data set of
  // a model counts ids alike; -1 looks at the rows.
  int detected_id_base = -1;
  int nthread = 0;  // 0 = all cores
  // Every float of the data and its side files: labels, weights, values, bounds.
  FloatReading parse_float = FloatReading::kExact;
  // Called for every label; returns nullptr when acceptable, else what is wrong with it
  // (e.g. "label 2 outside [0,1] for binary:logistic"). The reader reports file:line:column.
  // Called from several threads at once: it must be safe for that (a pure function is).
  std::function<const char*(float)> check_label;
  // The config key that named the URI ("data", "eval[test]", "test:data"), put before the
  // message when a file is missing or the URI is malformed; "" = none.
  std::string key;
};

// Reads a data URI: a LibSVM or CSV/TSV file, several files separated by ';' (as dmlc-core), or a
// directory (its files in name order), as one data set. URI options after '?' as XGBoost:
// format=libsvm|csv, label_column=N|NAME, weight_column=N|NAME, label_lower_bound_column=N|NAME,
// label_upper_bound_column=N|NAME, delimiter=X, header=0|1 (docs/data.md). Side files
// `<file>.weight`,
// `<file>.query` / `<file>.group`, `<file>.lower_bound` and `<file>.upper_bound` are read when
// present. A malformed input throws Error with
// `file:line:column: what is wrong`.
DataSet LoadData(const std::string& uri, const LoadOptions& options);

// Undoes the 1-based reading of a data set whose ids were read so (id_base 1): each id as written,
// num_col one more. For a part that detected 1-based ids where another part of the data holds an
// id 0.
void ReadIdsAsWritten(DataSet* data);

// "file:line" of the data row `row` (0-based, over all parts) of `uri`, for an error found after
// loading; the files are read again, so only error paths call it. "uri: row N" when the files no
// longer hold that row.
std::string DataRowPlace(const std::string& uri, uint64_t row);

}  // namespace ringboost
