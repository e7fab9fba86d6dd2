// Which bytes of the input a reader takes (DESIGN.md step 1). The files of a URI form one byte
// stream; reader r of w takes the lines that start in the r-th of w equal byte ranges of it. A
// boundary that falls inside a query group moves forward to the group's end, so a group belongs
// to the part holding its first row. Every reader computes each boundary with the same function
// of (files, k, w), so the parts tile the input: every row exactly once.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "data/side_files.h"
#include "data/text_input.h"

namespace ringboost {

struct InputFile {
  std::unique_ptr<MappedFile> map;
  SideFiles side;
  std::vector<uint64_t> group_sizes;  // from side.group, read before partitioning
  bool libsvm = true;                 // LibSVM rows may carry qid: groups
  // Where the file's rows start: past a UTF-8 byte-order mark, and past the header line with CSV
  // header=1 (LoadData sets it). Parts, row counts and side files count rows from here, so the
  // header is never a row, whichever part holds it.
  const char* rows_begin = nullptr;
};

struct ByteRange {
  const char* begin;
  const char* end;
};

// The range of every file that part `part` of `num_parts` takes (empty ranges included), in file
// order. Each range starts and ends at a line start (or the file's end), not before rows_begin.
std::vector<ByteRange> PartRanges(const std::vector<InputFile>& files, int part, int num_parts);

// The qid of the LibSVM line starting at p, or kNoQid when it has none (or an unreadable one:
// the parser reports that).
uint64_t LineQid(const char* p, const char* end);

}  // namespace ringboost
