// common/memory.h and common/parallel.h: saturating sizes, the refusal before a large
// allocation, and exceptions carried out of OpenMP regions.
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <cstdint>
#include <limits>
#include <new>
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

// A body that throws inside a parallel region: without ParallelErrors the exception would leave
// the region and end the process (std::terminate).
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
