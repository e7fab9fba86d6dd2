// sort_util.h: the radix sorts on several threads against the one-thread sort and std::sort.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "common/sort_util.h"

namespace ringboost::detail {
namespace {

// Rows keyed as key << 32 | row, in row order, with `distinct` different keys (many ties).
std::vector<uint64_t> RowKeys(std::size_t n, uint32_t distinct, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> key(0, distinct - 1);
  std::vector<uint64_t> keyed(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Spread the keys over all 32 bits so that every radix pass has work.
    const uint32_t k = key(rng) * 2654435761u;
    keyed[i] = (static_cast<uint64_t>(k) << 32) | i;
  }
  return keyed;
}

// Sizes below the radix sort's minimum, tiny and large shares, 3 and 5 threads (merge rounds with
// an unpaired share): every thread count gives std::sort's order, each thread its own share.
TEST(SortUtil, SortRowKeysIsStdSortForAnyThreads) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{16384},
                        std::size_t{40000}, std::size_t{100003}}) {
    for (uint32_t distinct : {1u, 37u, 1u << 30}) {
      const std::vector<uint64_t> input = RowKeys(n, distinct, static_cast<uint32_t>(n) + distinct);
      std::vector<uint64_t> want = input;
      std::sort(want.begin(), want.end());
      for (int nthread : {1, 2, 3, 5}) {
        std::vector<uint64_t> data = input, scratch(n), got(n);
        int threads = 0;
#pragma omp parallel num_threads(nthread)
        {
          const int t = omp_get_thread_num();
          threads = omp_get_num_threads();
          const uint64_t* sorted = SortRowKeysInRegion(data.data(), n, scratch.data(), t, threads);
          for (std::size_t i = ShareBegin(n, t, threads); i < ShareBegin(n, t + 1, threads); ++i) {
            got[i] = sorted[i];
          }
        }
        ASSERT_EQ(threads, nthread);
        ASSERT_EQ(got, want) << n << " rows, " << distinct << " keys, " << nthread << " threads";
      }
    }
  }
}

// One large column sorted by all the threads (the quantile sketch's columns): element for element
// RadixSortByKey's stable order, with many equal keys (their rows' order kept), for row keys in the
// high half (kShift 32) and bare 32-bit keys; sizes at and above the parallel minimum and one below
// it; keys where a pass moves nothing (one key; keys that differ only above the low 11 bits).
TEST(SortUtil, RadixSortOnThreadsIsTheOneThreadSort) {
  const std::size_t min = kParallelRadixSortMinSize;
  for (std::size_t n : {min - 1, min, std::size_t{200003}}) {
    for (uint32_t distinct : {1u, 37u, 1u << 30}) {
      const std::vector<uint64_t> input = RowKeys(n, distinct, static_cast<uint32_t>(n) ^ distinct);
      std::vector<uint64_t> want = input, scratch(n);
      RadixSortByKey<32>(want.data(), n, scratch.data());
      std::vector<uint32_t> keys(n), want_keys(n), key_scratch(n);
      for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<uint32_t>(input[i] >> 32) & ~0x7ffu;
      want_keys = keys;
      RadixSortByKey<0>(want_keys.data(), n, key_scratch.data());
      ASSERT_TRUE(std::is_sorted(want_keys.begin(), want_keys.end()));
      for (int nthread : {1, 2, 3, 5}) {
        std::vector<uint64_t> got = input;
        RadixSortByKeyOnThreads<32>(got.data(), n, scratch.data(), nthread);
        ASSERT_EQ(got, want) << n << " rows, " << distinct << " keys, " << nthread << " threads";
        std::vector<uint32_t> got_keys = keys;
        RadixSortByKeyOnThreads<0>(got_keys.data(), n, key_scratch.data(), nthread);
        ASSERT_EQ(got_keys, want_keys) << n << " keys, " << nthread << " threads";
      }
    }
  }
}

TEST(SortUtil, MergeSplitCountsTheFirstSmallest) {
  const std::vector<uint64_t> a = {1, 4, 6, 9}, b = {2, 3, 5, 7, 8};
  // The k smallest of the union are 1..k; those from a: 1 (k>=1), 4 (k>=4), 6 (k>=6), 9 (k=9).
  const std::size_t want[] = {0, 1, 1, 1, 2, 2, 3, 3, 3, 4};
  for (std::size_t k = 0; k <= 9; ++k) {
    EXPECT_EQ(MergeSplit(a.data(), a.size(), b.data(), b.size(), k), want[k]) << k;
  }
}

}  // namespace
}  // namespace ringboost::detail
