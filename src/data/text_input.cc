#include "data/text_input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
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
    // No MAP_POPULATE: that would make the whole file resident at once. Pages are mapped on
    // demand (the kernel maps a few around each fault), and readers Release what they walked.
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
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

void MappedFile::Release(const char* b, const char* e) const {
  b = std::max(b, begin());
  e = std::min(e, end());
  if (!mapped_ || b >= e) return;
  static const auto kPageSize = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  // The mapping is read-only and private: its pages are never written, so dropping them loses
  // nothing; the mapping itself starts on a page boundary and its last page is whole.
  auto lo = reinterpret_cast<std::uintptr_t>(b) & ~(kPageSize - 1);
  auto hi = (reinterpret_cast<std::uintptr_t>(e) + kPageSize - 1) & ~(kPageSize - 1);
  ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
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

uint64_t CountFileDataRows(const MappedFile& file, const char* begin, const char* end) {
  constexpr std::ptrdiff_t kWindow = std::ptrdiff_t{8} << 20;
  uint64_t rows = 0;
  for (const char* p = begin; p < end;) {
    const char* cut = end - p > kWindow ? AlignToLine(file.begin(), p + kWindow, end) : end;
    rows += CountDataRows(p, cut);
    file.Release(p, cut);
    p = cut;
  }
  return rows;
}

ByteCounts CountNewlinesAnd(const char* begin, const char* end, char sep) {
  ByteCounts counts;
  const char* p = begin;
#if defined(__SSE2__)
  // 16 bytes at a time; the byte counters of each lane are flushed before they can wrap.
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i sp = _mm_set1_epi8(sep);
  const __m128i zero = _mm_setzero_si128();
  while (end - p >= 16) {
    std::ptrdiff_t blocks = std::min<std::ptrdiff_t>((end - p) / 16, 255);
    __m128i acc_nl = zero, acc_sp = zero;
    for (std::ptrdiff_t i = 0; i < blocks; ++i, p += 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      acc_nl = _mm_sub_epi8(acc_nl, _mm_cmpeq_epi8(v, nl));
      acc_sp = _mm_sub_epi8(acc_sp, _mm_cmpeq_epi8(v, sp));
    }
    __m128i s_nl = _mm_sad_epu8(acc_nl, zero), s_sp = _mm_sad_epu8(acc_sp, zero);
    // Each 64-bit half holds a sum of 8 lanes (at most 2040): its low 16 bits are all of it.
    counts.newlines +=
        static_cast<uint64_t>(_mm_extract_epi16(s_nl, 0) + _mm_extract_epi16(s_nl, 4));
    counts.seps += static_cast<uint64_t>(_mm_extract_epi16(s_sp, 0) + _mm_extract_epi16(s_sp, 4));
  }
#endif
  for (; p < end; ++p) {
    counts.newlines += *p == '\n';
    counts.seps += *p == sep;
  }
  return counts;
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
  const char* shown_end = end - begin <= kMaxShown ? end : begin + kMaxShown;
  std::string out = "'";
  for (const char* p = begin; p < shown_end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c != 0x7f) {
      out += *p;
      continue;
    }
    char hex[8];
    std::snprintf(hex, sizeof(hex), "\\x%02x", c);
    out += hex;
  }
  return out + (shown_end == end ? "'" : "...'");
}

}  // namespace ringboost
