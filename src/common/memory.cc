#include "common/memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "common/error.h"

namespace ringboost {
namespace {

constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();

void Lower(MemoryLimit* m, uint64_t bytes, const char* source) {
  if (bytes < m->bytes) {
    m->bytes = bytes;
    m->source = source;
  }
}

uint64_t RlimitBytes(int resource) {
  rlimit r{};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return kUnlimited;
  return static_cast<uint64_t>(r.rlim_cur);
}

// cgroup v2's limit of this process's group ("max" or absent: none).
uint64_t CgroupBytes() {
  std::ifstream in("/sys/fs/cgroup/memory.max");
  std::string value;
  if (!(in >> value) || value == "max") return kUnlimited;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
  return end != nullptr && *end == '\0' && v > 0 ? v : kUnlimited;
}

MemoryLimit ReadLimit() {
  MemoryLimit m{kUnlimited, "no limit"};
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) {
    Lower(&m, MulSat(static_cast<uint64_t>(pages), static_cast<uint64_t>(page)), "physical memory");
  }
  Lower(&m, CgroupBytes(), "cgroup memory.max");
  Lower(&m, RlimitBytes(RLIMIT_DATA), "RLIMIT_DATA");
  Lower(&m, RlimitBytes(RLIMIT_AS), "RLIMIT_AS");
  if (const char* mb = std::getenv("RINGBOOST_MEMORY_LIMIT_MB"); mb != nullptr && *mb != '\0') {
    Lower(&m, MulSat(std::strtoull(mb, nullptr, 10), uint64_t{1} << 20),
          "RINGBOOST_MEMORY_LIMIT_MB");
  }
  return m;
}

// The address space this process holds now (VmSize): what RLIMIT_AS counts.
uint64_t AddressSpaceInUse() {
  std::ifstream in("/proc/self/statm");
  uint64_t pages = 0;
  if (!(in >> pages)) return 0;
  return MulSat(pages, static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
}

}  // namespace

void ReturnFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

void ReleasePages(const void* begin, const void* end) {
  static const auto kPage = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto lo = (reinterpret_cast<std::uintptr_t>(begin) + kPage - 1) & ~(kPage - 1);
  const auto hi = reinterpret_cast<std::uintptr_t>(end) & ~(kPage - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

const MemoryLimit& ProcessMemoryLimit() {
  static const MemoryLimit limit = ReadLimit();
  return limit;
}

uint64_t MulSat(uint64_t a, uint64_t b) {
  if (a != 0 && b > kUnlimited / a) return kUnlimited;
  return a * b;
}

uint64_t AddSat(uint64_t a, uint64_t b) { return b > kUnlimited - a ? kUnlimited : a + b; }

std::string FormatBytes(uint64_t bytes) {
  if (bytes == kUnlimited) return "more than 16 EiB";
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", v, units[u]);
  return text;
}

void CheckAllocation(uint64_t bytes, const std::string& what, const std::string& how,
                     const std::string& fix) {
  const MemoryLimit& limit = ProcessMemoryLimit();
  if (bytes <= limit.bytes / 2) return;  // the common case: no need to look further
  // Under an address-space limit, what the process already maps counts against it too.
  const uint64_t used = limit.source == "RLIMIT_AS" ? AddressSpaceInUse() : 0;
  const uint64_t left = used < limit.bytes ? limit.bytes - used : 0;
  if (bytes <= left) return;
  std::ostringstream room;
  room << "more than the " << FormatBytes(left) << " this process has left";
  if (used > 0) room << " of " << FormatBytes(limit.bytes);
  RB_FAIL(what << " needs " << FormatBytes(bytes) << " (" << how << "), " << room.str() << " ("
               << limit.source << ")" << (fix.empty() ? "" : "; " + fix));
}

void AdviseHugePages(void* data, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr std::size_t kWorthIt = std::size_t{4} << 20;
  if (bytes < kWorthIt) return;
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto at = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (at + page - 1) / page * page;
  const uintptr_t end = (at + bytes) / page * page;
  if (end > first) madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace ringboost
