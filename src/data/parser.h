// The chunk parsers: each turns a line-aligned byte range of one mapped file into a ParsedBlock,
// written straight into the data set's arrays at the chunk's offsets (load.cc sizes them by
// ChunkBounds, a cheap counting pass, so no chunk needs a copy of its own). Chunks are parsed in
// parallel. A parser stops at the first malformed token and throws Error
// "file:line:column: what is wrong" (column of the token start).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "data/data.h"
#include "data/text_input.h"

namespace ringboost {

constexpr uint64_t kNoQid = std::numeric_limits<uint64_t>::max();
// Ids must be <= 2^31 - 2, so that a column count (1 + the largest id) fits 31 bits, what the
// trees' walkers and the model format hold.
constexpr uint64_t kMaxFeatureId = (uint64_t{1} << 31) - 2;

// Upper bounds of the rows and the stored entries of the lines starting in a chunk: rows <= its
// newlines + 1; a stored LibSVM entry holds a ':' of its own; a CSV line holds at most its
// delimiters + 1 values.
struct ChunkBounds {
  uint64_t rows = 0;
  uint64_t entries = 0;
};
ChunkBounds LibSVMBounds(const char* begin, const char* end);
ChunkBounds CsvBounds(const char* begin, const char* end, char delimiter);

// One chunk's rows. The caller points the spans at room for the chunk's ChunkBounds; the hot loops
// write through them with no capacity checks.
struct ParsedBlock {
  // Where the rows go.
  uint64_t* row_end = nullptr;  // row_end[r] = entry_base + entries of rows 0..r (a row_ptr tail)
  float* label = nullptr;
  float* lower_bound = nullptr;  // CSV bound columns only: survival:aft's interval of each row
  float* upper_bound = nullptr;
  float* weight = nullptr;    // written from the first row with a weight on; earlier rows get 1
  uint64_t* qid = nullptr;    // written from the first row with a qid on; earlier rows kNoQid
  uint32_t* index = nullptr;  // feature ids as written (before 1-based shifting)
  float* value = nullptr;
  uint64_t entry_base = 0;  // position of index[0] in the whole data set

  // What was parsed.
  std::size_t num_rows = 0;
  std::size_t num_entries = 0;
  bool has_weight = false;             // some row gave `label:weight` (or a weight column)
  bool has_qid = false;                // some row gave qid:
  bool has_zero_id = false;            // some feature id was written as 0
  uint32_t max_id = 0;                 // largest id written (valid when num_entries > 0)
  const char* first_no_qid = nullptr;  // line start of the first row without qid: (LibSVM)

  // The weight of the current row; `given` = the row wrote one.
  void PutWeight(float w, bool given) {
    if (given && !has_weight) {
      std::fill(weight, weight + num_rows, 1.0f);
      has_weight = true;
    }
    if (has_weight) weight[num_rows] = w;
  }
  // The qid of the current row (kNoQid for none).
  void PutQid(uint64_t q) {
    if (q != kNoQid && !has_qid) {
      std::fill(qid, qid + num_rows, kNoQid);
      has_qid = true;
    }
    if (has_qid) qid[num_rows] = q;
  }
  void EndRow() { row_end[num_rows++] = entry_base + num_entries; }
};

struct ParseContext {
  const MappedFile* file = nullptr;
  int indexing_mode = 0;                            // 1: an id 0 is an error
  FloatReading parse_float = FloatReading::kExact;  // how every number becomes a float
  const std::function<const char*(float)>* check_label = nullptr;  // may be null or empty
  // CSV only
  char delimiter = ',';
  int label_column = -1;
  int weight_column = -1;
  int lower_bound_column = -1;  // both or neither (UriSpec's bound columns)
  int upper_bound_column = -1;
};

// The end of the CSV field that starts at p: the next delimiter or '\n' (or `end`), except that
// a field opening with a double quote (after spaces) holds the delimiters up to its closing quote,
// as a header name "a,b" does ("" inside quotes is a quote). A quote never spans lines. The one
// field splitter of the CSV rows and of the header's names; unquoted fields, all that numbers
// need, cost one extra test each.
inline const char* CsvFieldEnd(const char* p, const char* end, char delimiter) {
  const char* q = p;
  while (q < end && *q == ' ' && delimiter != ' ') ++q;
  if (q < end && *q == '"' && delimiter != '"') {
    bool quoted = true;
    for (p = q + 1; p < end && *p != '\n' && (quoted || *p != delimiter); ++p) {
      if (*p == '"') quoted = !quoted;
    }
    return p;
  }
  while (p < end && *p != delimiter && *p != '\n') ++p;
  return p;
}

// Parses the LibSVM lines starting in [begin, end) (begin a line start) into *out, whose spans
// have room for LibSVMBounds(begin, end).
void ParseLibSVM(const ParseContext& ctx, const char* begin, const char* end, ParsedBlock* out);
// Parses the CSV/TSV lines starting in [begin, end) into *out (room for CsvBounds).
void ParseCsv(const ParseContext& ctx, const char* begin, const char* end, ParsedBlock* out);

// Shared number rules. Parses all of [begin, end) as a float read `how` (a leading '+' allowed, as
// in LibSVM's "+1"); false when it is not exactly one number.
bool ParseFloatToken(FloatReading how, const char* begin, const char* end, float* out);
// survival:aft's rule for a bound, in a side file or a CSV column: a number >= 0, or inf (no upper
// bound). False when [begin, end) is not one such number.
bool ParseBoundToken(FloatReading how, const char* begin, const char* end, float* out);
// Reports a label (at p) the options reject or that is not finite.
void CheckLabel(const ParseContext& ctx, const char* tok, const char* tok_end, float label);

}  // namespace ringboost
