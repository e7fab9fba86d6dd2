// common/memory.h and common/parallel.h: saturating sizes, the refusal before a large
// allocation, and exceptions carried out of OpenMP regions.
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/memory.h"
#include "common/parallel.h"

namespace ringboost {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(Memory, SizesSaturateInsteadOfWrapping) {
  EXPECT_EQ(MulSat(uint64_t{1} << 32, uint64_t{1} << 31), uint64_t{1} << 63);
  EXPECT_EQ(MulSat(uint64_t{1} << 32, uint64_t{1} << 32), kMax);
  EXPECT_EQ(MulSat(0, kMax), 0u);
  EXPECT_EQ(AddSat(kMax - 1, 1), kMax);
  EXPECT_EQ(AddSat(kMax, 1), kMax);
}

TEST(Memory, BytesReadAsUnits) {
  EXPECT_EQ(FormatBytes(512), "512 bytes");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(uint64_t{41} << 30), "41.0 GiB");
  EXPECT_EQ(FormatBytes(kMax), "more than 16 EiB");
}

TEST(Memory, ARequestBeyondTheLimitIsRefusedNamingItsSize) {
  CheckAllocation(1024, "a small buffer", "1024 bytes", "");  // fits any machine
  try {
    CheckAllocation(kMax, "the histograms", "too many nodes x bins x 16 bytes", "lower max_bin");
    FAIL() << "accepted 16 EiB";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("the histograms needs more than 16 EiB (too many nodes x bins x 16 bytes), "
                      "more than the ",
                      0),
              0u)
        << m;
    EXPECT_NE(m.find(ProcessMemoryLimit().source + "); lower max_bin"), std::string::npos) << m;
  }
}

// The kernel's THP mode ("always", "madvise" or "never"), "" where it has none.
std::string HugePageMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const auto open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos
             ? ""
             : line.substr(open + 1, close - open - 1);
}

// The THPeligible field of /proc/self/smaps for the mapping holding `p`: 0, 1, or -1 when the
// kernel does not report it.
int HugePageEligible(const void* p) {
  std::ifstream in("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
    } else if (inside && line.rfind("THPeligible:", 0) == 0) {
      return std::stoi(line.substr(12));
    }
  }
  return -1;
}

// A hint that never changes the contents (large, small and sub-page ranges); in the kernel's
// "madvise" mode it is what makes a large buffer eligible for huge pages.
TEST(Memory, HugePageHintKeepsContentsAndMarksLargeBuffers) {
  std::vector<uint32_t> large, small;
  large.reserve(std::size_t{16} << 20 >> 2);  // 16 MiB: a mapping of its own
  small.reserve(std::size_t{1} << 20 >> 2);   // 1 MiB: under the size worth a hint
  AdviseHugePages(large.data(), large.capacity() * sizeof(uint32_t));
  AdviseHugePages(small.data(), small.capacity() * sizeof(uint32_t));
  AdviseHugePages(small.data() + 1, 3);  // less than a page, unaligned: nothing to do
  for (uint32_t i = 0; i < large.capacity(); ++i) large.push_back(i * 2654435761u);
  for (uint32_t i = 0; i < large.size(); ++i) ASSERT_EQ(large[i], i * 2654435761u);
  if (HugePageMode() != "madvise") GTEST_SKIP() << "THP mode '" << HugePageMode() << "'";
  const int eligible = HugePageEligible(large.data() + large.size() / 2);
  if (eligible < 0) GTEST_SKIP() << "no THPeligible in /proc/self/smaps";
  EXPECT_EQ(eligible, 1);
}

TEST(Memory, ReleasePagesDropsOnlyTheWholePagesInside) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> buffer(6 * page, 0x5a);
  unsigned char* base = buffer.data();
  // From 100 bytes into the buffer to 50 bytes past the end of its fourth page: the whole pages
  // inside start at the first page boundary after base + 100 and end at the last one before the
  // end; the bytes around them are the caller's and stay.
  unsigned char* begin = base + 100;
  unsigned char* end = base + 4 * page + 50;
  auto up = [&](unsigned char* p) {
    return base + (((reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1)) -
                   reinterpret_cast<std::uintptr_t>(base));
  };
  unsigned char* lo = up(begin);
  unsigned char* hi = up(end + 1) - page;
  ASSERT_LT(lo, hi);
  ReleasePages(begin, end);
  for (unsigned char* p = base; p < base + buffer.size(); ++p) {
    ASSERT_EQ(*p, p >= lo && p < hi ? 0 : 0x5a) << (p - base);
  }
  ReleasePages(end, begin);         // an empty range: nothing
  ReleasePages(hi + 1, hi + page);  // no whole page inside (hi is a page start): nothing
  EXPECT_EQ(hi[1], 0x5a);
  EXPECT_EQ(hi[page - 1], 0x5a);
}

// A body that throws inside a parallel region: without ParallelErrors the exception would leave
// the region and end the process (std::terminate).
TEST(ParallelErrors, AnExceptionInsideTheRegionIsRethrownAfterIt) {
  ParallelErrors errors;
  int ran = 0;
#pragma omp parallel for num_threads(4) reduction(+ : ran)
  for (int i = 0; i < 64; ++i) {
    errors.Run([&] {
      ++ran;
      if (i == 17) throw std::bad_alloc();
    });
  }
  EXPECT_TRUE(errors.failed());
  EXPECT_EQ(ran, 64);
  EXPECT_THROW(errors.Rethrow(), std::bad_alloc);
}

TEST(ParallelErrors, NothingToRethrowWhenEveryBodySucceeds) {
  ParallelErrors errors;
#pragma omp parallel for num_threads(4)
  for (int i = 0; i < 64; ++i) errors.Run([] {});
  EXPECT_FALSE(errors.failed());
  EXPECT_NO_THROW(errors.Rethrow());
}

}  // namespace
}  // namespace ringboost
