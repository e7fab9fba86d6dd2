// Raw text of input files and the line rules every reader shares. A file is mapped read-only
// once; parsers walk `const char*` ranges of it and compute line numbers only when they report
// an error, so the fast path never counts lines. Pages are mapped on demand, and readers that
// walk a large range release each window they are done with (Release), so a file's pages do not
// pile up in the resident set (mapped file pages count in it) while the CSR is built.
//
// Line rules (LibSVM and CSV alike): lines end with '\n'; ' ', '\t' and '\r' are blanks, so CRLF
// files read like LF files (the LibSVM reader refuses a token after a '\r': a lone CR). A line is a
// *data line* unless its first non-blank character is '#' (a comment) or it has none (a blank
// line). Row counts of side files and part boundaries use the same rule as the parsers, so they
// always agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ringboost {

// A whole file mapped read-only (an empty file maps to an empty range). Not copyable.
class MappedFile {
 public:
  // Throws Error "cannot open '<path>': <strerror>" when the file cannot be opened or mapped.
  explicit MappedFile(std::string path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* begin() const { return data_; }
  const char* end() const { return data_ + size_; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // Unmaps the pages of [b, e) (rounded out to whole pages, clipped to the file) from this
  // process: they stop counting in its resident set; reading them again maps them again from the
  // page cache, so this is safe while other threads read nearby bytes. Ignores ranges outside.
  void Release(const char* b, const char* e) const;

 private:
  std::string path_;
  const char* data_ = "";
  std::size_t size_ = 0;
  bool mapped_ = false;
};

inline bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Where the text of a file [begin, end) starts: past a UTF-8 byte-order mark (which Windows tools
// such as Excel's "CSV UTF-8" write, and XGBoost's readers skip), else at begin.
inline const char* SkipByteOrderMark(const char* begin, const char* end) {
  return end - begin >= 3 && begin[0] == '\xEF' && begin[1] == '\xBB' && begin[2] == '\xBF'
             ? begin + 3
             : begin;
}

// End of the line holding p: the position of its '\n', or `end`.
const char* LineEnd(const char* p, const char* end);
// Start of the line after the one holding p, or `end`.
inline const char* NextLine(const char* p, const char* end) {
  const char* e = LineEnd(p, end);
  return e == end ? end : e + 1;
}
// The first line start at or after p, where [base, end) is a whole file.
const char* AlignToLine(const char* base, const char* p, const char* end);
// Whether the line starting at p is a data line (see the file comment).
bool IsDataLine(const char* p, const char* end);
// Number of data lines starting in [begin, end); begin must be a line start.
uint64_t CountDataRows(const char* begin, const char* end);
// CountDataRows over a range of `file`, window by window, releasing each window after it.
uint64_t CountFileDataRows(const MappedFile& file, const char* begin, const char* end);
// The number of '\n' bytes and of `sep` bytes in [begin, end) (sep != '\n').
struct ByteCounts {
  uint64_t newlines = 0;
  uint64_t seps = 0;
};
ByteCounts CountNewlinesAnd(const char* begin, const char* end, char sep);
// Start of the `n`-th data line (0-based) at or after line start p; `end` if there are fewer.
const char* SkipDataRows(const char* p, const char* end, uint64_t n);

// "path:line:column" of byte p of the file starting at base (both 1-based).
std::string Locate(const std::string& path, const char* base, const char* p);
// Throws Error "path:line:column: what".
[[noreturn]] void FailAt(const std::string& path, const char* base, const char* p,
                         const std::string& what);
// The token text [begin, end) for a message, shortened to at most 40 characters; control bytes
// (a NUL would end the message) written as \xNN.
std::string Quote(const char* begin, const char* end);

}  // namespace ringboost
