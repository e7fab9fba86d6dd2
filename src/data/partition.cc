#include "data/partition.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "common/error.h"
#include "data/parser.h"

namespace ringboost {
namespace {

struct Boundary {
  std::size_t file;
  const char* pos;
};

// Moves line start `a` of `file` forward to the first row that starts a .query/.group group.
const char* AlignToGroupSizes(const InputFile& file, const char* a) {
  const char* end = file.map->end();
  uint64_t row = CountFileDataRows(*file.map, file.rows_begin, a);
  uint64_t start = 0;
  for (uint64_t size : file.group_sizes) {
    if (start >= row) break;
    start += size;
  }
  // A row past the last group: the sizes do not cover the file, which the reader reports.
  if (start < row) return a;
  return SkipDataRows(a, end, start - row);
}

// The start of the last data line before line start `a`, or nullptr.
const char* PreviousDataLine(const char* begin, const char* a) {
  const char* line_end = a;
  while (line_end > begin) {
    const char* line = line_end - 1;  // the '\n' ending the previous line
    while (line > begin && line[-1] != '\n') --line;
    if (IsDataLine(line, line_end)) return line;
    line_end = line;
  }
  return nullptr;
}

// Moves line start `a` of `file` past the rows that continue the qid group of the row before it.
const char* AlignToQidGroup(const InputFile& file, const char* a) {
  const char* begin = file.map->begin();
  const char* end = file.map->end();
  const char* prev = PreviousDataLine(begin, a);
  if (prev == nullptr) return a;
  uint64_t qid = LineQid(prev, end);
  if (qid == kNoQid) return a;
  while (a < end && (!IsDataLine(a, end) || LineQid(a, end) == qid)) a = NextLine(a, end);
  return a;
}

Boundary FindBoundary(const std::vector<InputFile>& files, int k, int num_parts) {
  uint64_t total = 0;
  for (const auto& f : files) total += f.map->size();
  if (k == 0) return {0, files[0].map->begin()};
  if (k == num_parts) return {files.size() - 1, files.back().map->end()};
  auto global = static_cast<uint64_t>(static_cast<unsigned __int128>(total) *
                                      static_cast<unsigned>(k) / static_cast<unsigned>(num_parts));
  std::size_t i = 0;
  while (i + 1 < files.size() && global >= files[i].map->size()) {
    global -= files[i].map->size();
    ++i;
  }
  const InputFile& file = files[i];
  const char* begin = file.map->begin();
  const char* end = file.map->end();
  const char* a = AlignToLine(begin, begin + std::min<uint64_t>(global, file.map->size()), end);
  a = std::max(a, file.rows_begin);
  if (!file.group_sizes.empty()) {
    a = AlignToGroupSizes(file, a);
  } else if (file.libsvm) {
    a = AlignToQidGroup(file, a);
  }
  return {i, a};
}

}  // namespace

uint64_t LineQid(const char* p, const char* end) {
  const char* line_end = LineEnd(p, end);
  while (p < line_end && IsBlank(*p)) ++p;
  while (p < line_end && !IsBlank(*p) && *p != '#') ++p;  // the label
  while (p < line_end && IsBlank(*p)) ++p;
  if (line_end - p < 4 || std::memcmp(p, "qid:", 4) != 0) return kNoQid;
  uint64_t qid = kNoQid;
  auto res = std::from_chars(p + 4, line_end, qid);
  return res.ec == std::errc() ? qid : kNoQid;
}

std::vector<ByteRange> PartRanges(const std::vector<InputFile>& files, int part, int num_parts) {
  RB_CHECK(!files.empty() && 0 <= part && part < num_parts);
  Boundary lo = FindBoundary(files, part, num_parts);
  Boundary hi = FindBoundary(files, part + 1, num_parts);
  std::vector<ByteRange> ranges;
  for (std::size_t j = 0; j < files.size(); ++j) {
    const char* begin = files[j].map->begin();
    const char* end = files[j].map->end();
    const char* b = j < lo.file ? end : (j == lo.file ? lo.pos : begin);
    const char* e = j < hi.file ? end : (j == hi.file ? hi.pos : begin);
    b = std::max(b, files[j].rows_begin);
    if (e < b) e = b;
    ranges.push_back({b, e});
  }
  return ranges;
}

}  // namespace ringboost
