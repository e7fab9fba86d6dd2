#include "data/side_files.h"

#include <sys/stat.h>

#include <charconv>
#include <cmath>

#include "common/error.h"
#include "data/parser.h"
#include "data/text_input.h"

namespace ringboost {
namespace {

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Calls fn(token_begin, token_end) for the one token of every data line of `file`.
template <typename Fn>
void ForEachValue(const MappedFile& file, Fn fn) {
  const char* end = file.end();
  for (const char* p = SkipByteOrderMark(file.begin(), end); p < end; p = NextLine(p, end)) {
    if (!IsDataLine(p, end)) continue;
    const char* b = p;
    while (IsBlank(*b)) ++b;
    const char* e = LineEnd(b, end);
    while (e > b && IsBlank(e[-1])) --e;
    fn(b, e);
  }
}

}  // namespace

SideFiles FindSideFiles(const std::string& data_path) {
  SideFiles side;
  if (IsRegularFile(data_path + ".weight")) side.weight = data_path + ".weight";
  bool query = IsRegularFile(data_path + ".query");
  bool group = IsRegularFile(data_path + ".group");
  if (query && group) {
    RB_FAIL("both '" << data_path << ".query' and '" << data_path
                     << ".group' exist; keep one of them (group sizes, one per line)");
  }
  if (query) side.group = data_path + ".query";
  if (group) side.group = data_path + ".group";
  const bool lower = IsRegularFile(data_path + ".lower_bound");
  const bool upper = IsRegularFile(data_path + ".upper_bound");
  if (lower != upper) {
    RB_FAIL("'" << data_path << (lower ? ".lower_bound" : ".upper_bound") << "' exists but '"
                << data_path << (lower ? ".upper_bound" : ".lower_bound")
                << "' does not; survival:aft needs both bounds of every row (upper inf: "
                   "right-censored)");
  }
  if (lower) {
    side.lower_bound = data_path + ".lower_bound";
    side.upper_bound = data_path + ".upper_bound";
  }
  return side;
}

std::vector<float> ReadWeightFile(const std::string& path, FloatReading how) {
  MappedFile file(path);
  std::vector<float> weights;
  ForEachValue(file, [&](const char* b, const char* e) {
    float w = 0;
    if (!ParseFloatToken(how, b, e, &w) || !(std::isfinite(w) && w >= 0)) {
      FailAt(path, file.begin(), b,
             "bad weight " + Quote(b, e) + " (expected one finite number >= 0 per line)");
    }
    weights.push_back(w);
  });
  return weights;
}

std::vector<float> ReadBoundFile(const std::string& path, const char* what, FloatReading how) {
  MappedFile file(path);
  std::vector<float> bounds;
  ForEachValue(file, [&](const char* b, const char* e) {
    float v = 0;
    if (!ParseBoundToken(how, b, e, &v)) {
      FailAt(path, file.begin(), b,
             std::string("bad ") + what + " " + Quote(b, e) +
                 " (expected one number >= 0 per line, or inf)");
    }
    bounds.push_back(v);
  });
  return bounds;
}

std::vector<uint64_t> ReadGroupFile(const std::string& path) {
  MappedFile file(path);
  std::vector<uint64_t> sizes;
  ForEachValue(file, [&](const char* b, const char* e) {
    uint64_t n = 0;
    auto [ptr, ec] = std::from_chars(b, e, n);
    if (ec != std::errc() || ptr != e || n == 0) {
      FailAt(path, file.begin(), b,
             "bad group size " + Quote(b, e) + " (expected one integer > 0 per line)");
    }
    sizes.push_back(n);
  });
  return sizes;
}

}  // namespace ringboost
