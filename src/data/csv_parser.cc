// CSV/TSV lines: fields separated by one delimiter character (not one inside a quoted field, as
// a header name "a,b" may hold: CsvFieldEnd); a field is trimmed of blanks
// (spaces, '\r', and tabs unless the delimiter is a tab). The label, weight and label bound
// columns are taken out; every other column gets the next feature id (0, 1, ...) whether present
// or not, so ids are column positions as in dmlc-core. An empty field, `NA`, or anything that
// parses as NaN is missing and not stored; every present value is stored, zeros included. With
// header=1 the first data line of each file (column names) is before the file's rows_begin
// (load.cc): no chunk holds it.
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>

#include "data/parser.h"

namespace ringboost {
namespace {

class CsvLineParser {
 public:
  CsvLineParser(const ParseContext& ctx, const char* end, ParsedBlock* out)
      : ctx_(ctx), end_(end), out_(out), trim_tab_(ctx.delimiter != '\t') {}

  // Parses the data line starting at `line`; returns the start of the next line.
  const char* ParseRow(const char* line) {
    line_ = line;
    const char* p = line;
    int column = 0;
    uint32_t id = 0;
    bool have_label = false;
    float weight = 1.0f;
    float bounds[2] = {0.0f, 0.0f};  // lower, upper
    while (true) {
      const char* field_end = CsvFieldEnd(p, end_, ctx_.delimiter);
      const char* b = p;
      const char* e = field_end;
      while (b < e && IsTrim(*b)) ++b;
      while (e > b && IsTrim(e[-1])) --e;
      if (column == ctx_.label_column) {
        ParseLabel(b, e);
        have_label = true;
      } else if (column == ctx_.weight_column) {
        weight = ParseWeight(b, e);
      } else if (column == ctx_.lower_bound_column) {
        bounds[0] = ParseBound(b, e, kLower);
      } else if (column == ctx_.upper_bound_column) {
        bounds[1] = ParseBound(b, e, kUpper);
      } else {
        ParseValue(b, e, id++);
      }
      ++column;
      if (field_end == end_ || *field_end == '\n') {
        p = field_end;
        break;
      }
      p = field_end + 1;
    }
    if (ctx_.lower_bound_column >= 0) FinishBounds(line, column, bounds);
    FinishRow(line, column, have_label, weight);
    return p == end_ ? end_ : p + 1;
  }

 private:
  bool IsTrim(char c) const { return c == ' ' || c == '\r' || (trim_tab_ && c == '\t'); }

  [[noreturn]] void Fail(const char* p, const std::string& what) const {
    FailAt(ctx_.file->path(), ctx_.file->begin(), p, what);
  }

  static bool IsMissing(const char* b, const char* e) {
    return b == e || (e - b == 2 && b[0] == 'N' && b[1] == 'A');
  }

  void ParseLabel(const char* b, const char* e) {
    float label = 0;
    if (IsMissing(b, e)) Fail(b, "missing label (label_column=" + std::to_string(column()) + ")");
    if (!ParseFloatToken(ctx_.parse_float, b, e, &label)) {
      // A header row read as data: the usual first failure of a CSV with column names.
      const bool first_line = line_ == SkipByteOrderMark(ctx_.file->begin(), ctx_.file->end());
      Fail(b, "bad label " + Quote(b, e) + " (expected a number" +
                  (first_line ? "; if the first line holds column names, add header=1 to the "
                                "data URI, e.g. train.csv?format=csv&header=1&label_column=NAME)"
                              : ")"));
    }
    CheckLabel(ctx_, b, e, label);
    out_->label[out_->num_rows] = label;
  }

  int column() const { return ctx_.label_column; }

  float ParseWeight(const char* b, const char* e) {
    float weight = 0;
    if (IsMissing(b, e)) {
      Fail(b, "missing weight (weight_column=" + std::to_string(ctx_.weight_column) + ")");
    }
    if (!ParseFloatToken(ctx_.parse_float, b, e, &weight) ||
        !(std::isfinite(weight) && weight >= 0)) {
      Fail(b, "bad weight " + Quote(b, e) + " (expected a finite number >= 0)");
    }
    return weight;
  }

  static constexpr int kLower = 0, kUpper = 1;
  static constexpr const char* kBoundName[2] = {"lower bound", "upper bound"};
  int BoundColumn(int which) const {
    return which == kLower ? ctx_.lower_bound_column : ctx_.upper_bound_column;
  }
  std::string BoundKey(int which) const {
    return std::string(which == kLower ? "label_lower_bound_column="
                                       : "label_upper_bound_column=") +
           std::to_string(BoundColumn(which));
  }

  float ParseBound(const char* b, const char* e, int which) {
    float v = 0;
    if (IsMissing(b, e))
      Fail(b, std::string("missing ") + kBoundName[which] + " (" + BoundKey(which) + ")");
    if (!ParseBoundToken(ctx_.parse_float, b, e, &v)) {
      Fail(b, std::string("bad ") + kBoundName[which] + " " + Quote(b, e) + " (" + BoundKey(which) +
                  ": expected a number >= 0, or inf)");
    }
    return v;
  }

  // survival:aft's interval of the row: both bound columns present, lower <= upper, upper > 0.
  void FinishBounds(const char* line, int columns, const float* bounds) {
    for (int which : {kLower, kUpper}) {
      if (columns <= BoundColumn(which)) {
        Fail(line, std::string("missing ") + kBoundName[which] + ": the row has " +
                       std::to_string(columns) + " fields, " + BoundKey(which));
      }
    }
    if (bounds[kLower] > bounds[kUpper]) {
      std::ostringstream what;
      what << "lower bound " << bounds[kLower] << " is above the upper bound " << bounds[kUpper]
           << "; give lower <= upper";
      Fail(line, what.str());
    }
    if (!(bounds[kUpper] > 0.0f)) {
      Fail(line, "upper bound 0 (" + BoundKey(kUpper) +
                     "); a survival time's upper bound must be > 0 (inf: right-censored)");
    }
    out_->lower_bound[out_->num_rows] = bounds[kLower];
    out_->upper_bound[out_->num_rows] = bounds[kUpper];
  }

  void ParseValue(const char* b, const char* e, uint32_t id) {
    if (IsMissing(b, e)) return;
    float value = 0;
    if (!ParseFloatToken(ctx_.parse_float, b, e, &value)) {
      Fail(b, "bad value " + Quote(b, e) + " (expected a number, or empty/nan/NA for missing)");
    }
    if (std::isnan(value)) return;
    if (std::isinf(value)) Fail(b, "infinite value " + Quote(b, e));
    if (id == 0) out_->has_zero_id = true;
    out_->index[out_->num_entries] = id;
    out_->value[out_->num_entries++] = value;
    if (id > out_->max_id) out_->max_id = id;
  }

  void FinishRow(const char* line, int columns, bool have_label, float weight) {
    if (ctx_.label_column >= 0 && !have_label) {
      Fail(line, "missing label: the row has " + std::to_string(columns) +
                     " fields, label_column=" + std::to_string(ctx_.label_column));
    }
    if (ctx_.weight_column >= 0 && columns <= ctx_.weight_column) {
      Fail(line, "missing weight: the row has " + std::to_string(columns) +
                     " fields, weight_column=" + std::to_string(ctx_.weight_column));
    }
    if (ctx_.label_column < 0) out_->label[out_->num_rows] = 0.0f;  // no label column: labels 0
    out_->PutWeight(weight, ctx_.weight_column >= 0);
    out_->EndRow();
  }

  const ParseContext& ctx_;
  const char* end_;
  ParsedBlock* out_;
  bool trim_tab_;
  const char* line_ = nullptr;  // start of the row being parsed
};

}  // namespace

ChunkBounds CsvBounds(const char* begin, const char* end, char delimiter) {
  ByteCounts counts = CountNewlinesAnd(begin, end, delimiter);
  return {counts.newlines + 1, counts.seps + counts.newlines + 1};
}

void ParseCsv(const ParseContext& ctx, const char* begin, const char* end, ParsedBlock* out) {
  CsvLineParser parser(ctx, end, out);
  const char* p = begin;
  while (p < end) {
    if (!IsDataLine(p, end)) {
      p = NextLine(p, end);
      continue;
    }
    p = parser.ParseRow(p);
  }
}

}  // namespace ringboost
