#include "data/text_input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "common/error.h"

namespace ringboost {

MappedFile::MappedFile(std::string path) : path_(std::move(path)) {
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) RB_FAIL("cannot open '" << path_ << "': " << std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    RB_FAIL("cannot open '" << path_ << "': " << std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    RB_FAIL("cannot open '" << path_ << "': " << std::strerror(EISDIR));
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ > 0) {
    // MAP_POPULATE reads the pages in up front: far fewer page faults than demand paging.
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      RB_FAIL("cannot open '" << path_ << "': mmap: " << std::strerror(err));
    }
    ::madvise(p, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const char*>(p);
    mapped_ = true;
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(const_cast<char*>(data_), size_);
}

const char* LineEnd(const char* p, const char* end) {
  const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  return nl == nullptr ? end : static_cast<const char*>(nl);
}

const char* AlignToLine(const char* base, const char* p, const char* end) {
  if (p <= base) return base;
  if (p >= end) return end;
  if (p[-1] == '\n') return p;
  return NextLine(p, end);
}

bool IsDataLine(const char* p, const char* end) {
  while (p < end && IsBlank(*p)) ++p;
  return p < end && *p != '\n' && *p != '#';
}

uint64_t CountDataRows(const char* begin, const char* end) {
  uint64_t rows = 0;
  for (const char* p = begin; p < end; p = NextLine(p, end)) rows += IsDataLine(p, end);
  return rows;
}

const char* SkipDataRows(const char* p, const char* end, uint64_t n) {
  for (; p < end; p = NextLine(p, end)) {
    if (IsDataLine(p, end)) {
      if (n == 0) return p;
      --n;
    }
  }
  return end;
}

void AdviseHugePages(void* p, std::size_t bytes) {
  constexpr std::uintptr_t kPage = 4096;
  constexpr std::size_t kWorthIt = std::size_t{4} << 20;
  if (bytes < kWorthIt) return;
  auto begin = (reinterpret_cast<std::uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

std::string Locate(const std::string& path, const char* base, const char* p) {
  uint64_t line = 1 + static_cast<uint64_t>(std::count(base, p, '\n'));
  const char* line_start = p;
  while (line_start > base && line_start[-1] != '\n') --line_start;
  return path + ":" + std::to_string(line) + ":" + std::to_string(p - line_start + 1);
}

void FailAt(const std::string& path, const char* base, const char* p, const std::string& what) {
  throw Error(Locate(path, base, p) + ": " + what);
}

std::string Quote(const char* begin, const char* end) {
  constexpr std::ptrdiff_t kMaxShown = 40;
  if (end - begin <= kMaxShown) return "'" + std::string(begin, end) + "'";
  return "'" + std::string(begin, begin + kMaxShown) + "...'";
}

}  // namespace ringboost
