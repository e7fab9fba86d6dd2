#include "common/threads.h"

#include <sys/resource.h>

#include <cctype>
#include <cstdlib>
#include <string>

#include "common/memory.h"

namespace ringboost {
namespace {

// OMP_STACKSIZE as libgomp reads it: a number with an optional B/K/M/G suffix, K when none.
uint64_t OmpStackSize(const char* text) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text) return 0;
  switch (std::toupper(static_cast<unsigned char>(*end))) {
    case 'B':
      return v;
    case 'M':
      return MulSat(v, uint64_t{1} << 20);
    case 'G':
      return MulSat(v, uint64_t{1} << 30);
    default:
      return MulSat(v, uint64_t{1} << 10);
  }
}

// The stack each thread of the team gets (glibc's default for new threads: the stack limit,
// 8 MiB when it is unlimited or unknown, as libgomp does not set one unless told).
uint64_t ThreadStackBytes() {
  if (const char* v = std::getenv("OMP_STACKSIZE"); v != nullptr && OmpStackSize(v) > 0) {
    return OmpStackSize(v);
  }
  rlimit r{};
  if (getrlimit(RLIMIT_STACK, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur > 0) {
    return static_cast<uint64_t>(r.rlim_cur);
  }
  return uint64_t{8} << 20;
}

}  // namespace

void CheckThreadStacks(int nthread) {
  const int threads = ResolveThreads(nthread);
  const uint64_t stack = ThreadStackBytes();
  CheckAllocation(MulSat(static_cast<uint64_t>(threads), stack),
                  "nthread=" + std::to_string(threads),
                  std::to_string(threads) + " thread stacks x " + FormatBytes(stack) +
                      " (OMP_STACKSIZE, else the stack size limit)",
                  "use fewer threads or a smaller OMP_STACKSIZE");
}

}  // namespace ringboost
