// LibSVM lines: `label[:weight] [qid:N] id:value ...`, tokens separated by blanks, '#' starts a
// comment anywhere. The hot loop touches each byte once and allocates nothing per token; every
// error path re-reads the token to name it exactly.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "data/number.h"
#include "data/parser.h"

namespace ringboost {
namespace {

inline bool IsTokenEnd(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#';
}

const char* TokenEnd(const char* p, const char* end) {
  while (p < end && !IsTokenEnd(*p)) ++p;
  return p;
}

inline const char* SkipBlanks(const char* p, const char* end) {
  while (p < end && IsBlank(*p)) ++p;
  return p;
}

// Reads the id digits at p; *id saturates above kMaxFeatureId. Returns the first non-digit.
inline const char* ReadId(const char* p, const char* end, uint64_t* id) {
  uint64_t v = 0;
  for (; p < end && static_cast<unsigned>(*p - '0') < 10u; ++p) {
    if (v <= kMaxFeatureId) v = v * 10 + static_cast<unsigned>(*p - '0');
  }
  *id = v;
  return p;
}

class LineParser {
 public:
  LineParser(const ParseContext& ctx, const char* end, ParsedBlock* out)
      : ctx_(ctx), end_(end), out_(out) {}

  // Parses the data line whose first token starts at tok; returns the start of the next line.
  const char* ParseRow(const char* line, const char* tok) {
    const char* p = ParseLabel(tok);
    p = SkipBlanksInLine(p);
    uint64_t qid = kNoQid;
    if (end_ - p >= 4 && std::memcmp(p, "qid:", 4) == 0) p = SkipBlanksInLine(ParseQid(p, &qid));
    if (qid == kNoQid && out_->first_no_qid == nullptr) out_->first_no_qid = line;
    out_->PutQid(qid);
    p = ParseFeatures(line, p);
    out_->EndRow();
    return NextLine(p, end_);
  }

 private:
  // The hot loop: the id:value tokens from p to the end of the line, appended to the block.
  const char* ParseFeatures(const char* line, const char* p) {
    uint32_t* const row_index = out_->index + out_->num_entries;
    uint32_t* index = row_index;
    float* value = out_->value + out_->num_entries;
    uint32_t max_id = out_->max_id;
    int64_t prev = -1;
    bool sorted = true;
    bool dropped = false;  // a NaN entry was left out
    while (p < end_ && *p != '\n' && *p != '#') {
      const char* tok = p;
      uint64_t id = 0;
      p = ReadId(tok, end_, &id);
      if (p == tok || p == end_ || *p != ':' || id > kMaxFeatureId) FailId(tok);
      float v = 0;
      const char* v_end = ParseFloatPrefix(ctx_.parse_float, p + 1, end_, &v);
      if (v_end == nullptr || (v_end != end_ && !IsTokenEnd(*v_end))) FailValue(tok, p + 1);
      if (static_cast<int64_t>(id) <= prev) sorted = CheckOrder(tok, id, prev);
      if (id == 0) ZeroId(tok);
      prev = static_cast<int64_t>(id);
      if (!std::isnan(v)) {
        if (std::isinf(v)) Fail(tok, "infinite feature value in " + Quote(tok, v_end));
        *index++ = static_cast<uint32_t>(id);
        *value++ = v;
        max_id = std::max(max_id, static_cast<uint32_t>(id));
      } else {
        dropped = true;
      }
      p = SkipBlanksInLine(v_end);
    }
    out_->max_id = max_id;
    out_->num_entries = static_cast<std::size_t>(index - out_->index);
    if (!sorted && dropped) CheckDuplicateIds(line);
    if (!sorted) SortRow(line, static_cast<std::size_t>(row_index - out_->index));
    return p;
  }

  // Skips the blanks after a token. A '\r' among them ends the line (CRLF) or is followed by
  // blanks only: a token after it is a lone CR, an old Mac line end, which XGBoost reads as a line
  // end and this reader would join into one row, so it is an error.
  const char* SkipBlanksInLine(const char* p) const {
    const char* cr = nullptr;
    for (; p < end_ && IsBlank(*p); ++p) {
      if (*p == '\r') cr = p;
    }
    if (cr != nullptr && p < end_ && *p != '\n' && *p != '#') {
      Fail(cr,
           "a carriage return (\\r) inside a line: old Mac line ends? Convert them to \\n "
           "(tr '\\r' '\\n' < IN > OUT)");
    }
    return p;
  }

  // An id not above the previous one: a duplicate is an error, else the row needs sorting.
  bool CheckOrder(const char* tok, uint64_t id, int64_t prev) const {
    if (static_cast<int64_t>(id) == prev) {
      Fail(tok, "duplicate feature id " + std::to_string(id) + " in this row");
    }
    return false;
  }

  void ZeroId(const char* tok) {
    if (ctx_.indexing_mode > 0) {
      Fail(tok, "feature id 0 in " + Quote(tok, TokenEnd(tok, end_)) +
                    " with indexing_mode=1 (ids start at 1)");
    }
    out_->has_zero_id = true;
  }

  [[noreturn]] void Fail(const char* p, const std::string& what) const {
    FailAt(ctx_.file->path(), ctx_.file->begin(), p, what);
  }

  const char* ParseLabel(const char* tok) {
    const char* tok_end = TokenEnd(tok, end_);
    const char* colon =
        static_cast<const char*>(std::memchr(tok, ':', static_cast<std::size_t>(tok_end - tok)));
    float label = 0;
    if (!ParseFloatToken(ctx_.parse_float, tok, colon ? colon : tok_end, &label)) {
      Fail(tok, "bad label " + Quote(tok, tok_end) + " (expected a number)");
    }
    CheckLabel(ctx_, tok, tok_end, label);
    float weight = 1.0f;
    if (colon != nullptr) {
      if (!ParseFloatToken(ctx_.parse_float, colon + 1, tok_end, &weight)) {
        Fail(tok, "bad weight in " + Quote(tok, tok_end) + " (expected label:weight)");
      }
      if (!(std::isfinite(weight) && weight >= 0)) {
        Fail(tok, "weight in " + Quote(tok, tok_end) + " must be finite and >= 0");
      }
    }
    out_->label[out_->num_rows] = label;
    out_->PutWeight(weight, colon != nullptr);
    return tok_end;
  }

  const char* ParseQid(const char* tok, uint64_t* qid) {
    const char* tok_end = TokenEnd(tok, end_);
    auto [ptr, ec] = std::from_chars(tok + 4, tok_end, *qid);
    if (ec != std::errc() || ptr != tok_end || tok + 4 == tok_end || *qid == kNoQid) {
      Fail(tok, "bad query id in " + Quote(tok, tok_end) + " (expected qid:N, N >= 0)");
    }
    return tok_end;
  }

  [[noreturn]] void FailId(const char* tok) const {
    const char* tok_end = TokenEnd(tok, end_);
    const char* colon =
        static_cast<const char*>(std::memchr(tok, ':', static_cast<std::size_t>(tok_end - tok)));
    std::string shown = Quote(tok, tok_end);
    if (colon == nullptr) Fail(tok, "bad feature " + shown + " (expected index:value)");
    bool digits = colon > tok + (*tok == '-');
    for (const char* q = tok + (*tok == '-'); q < colon; ++q) digits &= (*q >= '0' && *q <= '9');
    if (digits) {
      Fail(tok, "feature id out of range in " + shown + " (ids must be in [0, 2147483646])");
    }
    Fail(tok, "bad feature id in " + shown + " (expected a non-negative integer)");
  }

  [[noreturn]] void FailValue(const char* tok, const char* value) const {
    const char* tok_end = TokenEnd(tok, end_);
    if (value == tok_end) Fail(tok, "missing value in " + Quote(tok, tok_end));
    Fail(tok, "bad feature value in " + Quote(tok, tok_end) + " (expected a number)");
  }

  // Sorts the entries of an unsorted row by id; a repeated id is an error at its second token.
  void SortRow(const char* line, std::size_t row_begin) {
    std::vector<std::pair<uint32_t, float>> entries;
    for (std::size_t i = row_begin; i < out_->num_entries; ++i) {
      entries.emplace_back(out_->index[i], out_->value[i]);
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i > 0 && entries[i].first == entries[i - 1].first) FailDuplicate(line, entries[i].first);
      out_->index[row_begin + i] = entries[i].first;
      out_->value[row_begin + i] = entries[i].second;
    }
  }

  // SortRow sees only the stored entries: an unsorted row that left out a NaN entry may repeat
  // its id (3:nan 1:2 3:4), so the ids of all its tokens are checked. Rare: off the hot path.
  void CheckDuplicateIds(const char* line) const {
    const char* line_end = LineEnd(line, end_);
    const char* p = TokenEnd(SkipBlanks(line, line_end), line_end);  // past the label
    std::vector<uint64_t> ids;
    while ((p = SkipBlanks(p, line_end)) < line_end && *p != '#') {
      uint64_t id = 0;
      const char* q = ReadId(p, line_end, &id);
      if (q != p && q < line_end && *q == ':') ids.push_back(id);  // not qid:
      p = TokenEnd(p, line_end);
    }
    std::sort(ids.begin(), ids.end());
    auto repeated = std::adjacent_find(ids.begin(), ids.end());
    if (repeated != ids.end()) FailDuplicate(line, static_cast<uint32_t>(*repeated));
  }

  [[noreturn]] void FailDuplicate(const char* line, uint32_t id) const {
    const char* line_end = LineEnd(line, end_);
    const char* p = TokenEnd(SkipBlanks(line, line_end), line_end);  // past the label
    int seen = 0;
    while ((p = SkipBlanks(p, line_end)) < line_end && *p != '#') {
      uint64_t tok_id = 0;
      const char* q = ReadId(p, line_end, &tok_id);
      if (q != p && q < line_end && *q == ':' && tok_id == id && ++seen == 2) {
        Fail(p, "duplicate feature id " + std::to_string(id) + " in this row");
      }
      p = TokenEnd(p, line_end);
    }
    Fail(line, "duplicate feature id " + std::to_string(id) + " in this row");
  }

  const ParseContext& ctx_;
  const char* end_;
  ParsedBlock* out_;
};

}  // namespace

bool ParseFloatToken(FloatReading how, const char* begin, const char* end, float* out) {
  return begin < end && ParseFloatPrefix(how, begin, end, out) == end;
}

bool ParseBoundToken(FloatReading how, const char* begin, const char* end, float* out) {
  return ParseFloatToken(how, begin, end, out) && *out >= 0;  // NaN and -inf fail too
}

void CheckLabel(const ParseContext& ctx, const char* tok, const char* tok_end, float label) {
  const char* base = ctx.file->begin();
  if (!std::isfinite(label)) {
    FailAt(ctx.file->path(), base, tok, "label " + Quote(tok, tok_end) + " is not a finite number");
  }
  if (ctx.check_label != nullptr && *ctx.check_label) {
    const char* what = (*ctx.check_label)(label);
    if (what != nullptr) FailAt(ctx.file->path(), base, tok, what);
  }
}

ChunkBounds LibSVMBounds(const char* begin, const char* end) {
  ByteCounts counts = CountNewlinesAnd(begin, end, ':');
  return {counts.newlines + 1, counts.seps};
}

void ParseLibSVM(const ParseContext& ctx, const char* begin, const char* end, ParsedBlock* out) {
  LineParser parser(ctx, end, out);
  const char* p = begin;
  while (p < end) {
    const char* tok = SkipBlanks(p, end);
    if (tok == end) break;
    if (*tok == '\n' || *tok == '#') {
      p = NextLine(tok, end);
      continue;
    }
    p = parser.ParseRow(p, tok);
  }
}

}  // namespace ringboost
