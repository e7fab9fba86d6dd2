// Sorting helpers: the quantile sketch's columns, the metrics' predictions.
//
// Floats are sorted through an order-preserving uint32 key: integer order of the keys is the
// float order of the values, with -0.0 folded onto +0.0 (they compare equal as floats, so they
// must be one distinct value). Large columns are sorted by an LSD radix sort on that key, which
// is several times faster than std::sort for the million-value columns of the benchmarks.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ringboost::detail {

// Order-preserving key of a (non-NaN) float.
inline uint32_t FloatToKey(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  if (bits == 0x80000000u) bits = 0;  // -0.0 == +0.0
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

// Inverse of FloatToKey.
inline float KeyToFloat(uint32_t key) {
  const uint32_t bits = (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
  float v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

// The radix sorts' three digits of a 32-bit key: their lowest bits and their masks.
constexpr int kRadixLow[3] = {0, 11, 22};
constexpr uint32_t kRadixMask[3] = {0x7ff, 0x7ff, 0x3ff};

// Below this many elements std::sort beats the four radix passes.
constexpr std::size_t kRadixSortMinSize = 1024;

// Sorts data[0, n) ascending by the 32-bit key (elem >> kShift) & 0xffffffff: an LSD radix sort
// with digits of 11, 11 and 10 bits (three passes; counters fit in L1) that skips a pass where
// every element has the same digit. `scratch` holds n elements (n < kRadixSortMinSize: none are
// used). Each pass is stable, so elements with equal keys keep their order (below
// kRadixSortMinSize, std::sort orders them by their whole value).
template <int kShift, typename Elem>
void RadixSortByKey(Elem* data, std::size_t n, Elem* scratch) {
  if (n < kRadixSortMinSize || n > 0xffffffffu) {  // counters are 32-bit
    std::sort(data, data + n);  // key in the high bits (or the whole element): same order
    return;
  }
  std::vector<uint32_t> hist(3 * 2048, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const uint32_t key = static_cast<uint32_t>(data[i] >> kShift);
    ++hist[key & 0x7ff];
    ++hist[2048 + ((key >> 11) & 0x7ff)];
    ++hist[4096 + (key >> 22)];
  }
  Elem* src = data;
  Elem* dst = scratch;
  for (int d = 0; d < 3; ++d) {
    uint32_t* offset = hist.data() + 2048 * d;
    const uint32_t first_digit =
        (static_cast<uint32_t>(src[0] >> kShift) >> kRadixLow[d]) & kRadixMask[d];
    if (offset[first_digit] == n) continue;
    uint32_t sum = 0;
    for (uint32_t b = 0; b <= kRadixMask[d]; ++b) {
      const uint32_t count = offset[b];
      offset[b] = sum;
      sum += count;
    }
    const int shift = kShift + kRadixLow[d];
    for (std::size_t i = 0; i < n; ++i) dst[offset[(src[i] >> shift) & kRadixMask[d]]++] = src[i];
    std::swap(src, dst);
  }
  if (src != data) std::memcpy(data, src, n * sizeof(Elem));
}

// At least this many elements before RadixSortByKeyOnThreads uses more than one thread.
constexpr std::size_t kParallelRadixSortMinSize = std::size_t{1} << 16;

// RadixSortByKey's sort on `nthread` threads, for one large column: each pass, every thread counts
// the digits of its share of the elements, then moves its share to the places that the counts of
// the smaller digits, and of the same digit in the shares before its own, leave it. A thread's
// elements of one digit keep their order after those of the threads before it, so every pass is
// stable and the result is RadixSortByKey's, element for element, whatever the thread count.
// `scratch` holds n elements.
template <int kShift, typename Elem>
void RadixSortByKeyOnThreads(Elem* data, std::size_t n, Elem* scratch, int nthread) {
  if (nthread <= 1 || n < kParallelRadixSortMinSize || n > 0xffffffffu) {
    RadixSortByKey<kShift>(data, n, scratch);
    return;
  }
  constexpr std::size_t kDigits = 2048;
  // counts[t * kDigits + digit]: share t's elements of that digit in the current pass.
  std::vector<uint32_t> counts(static_cast<std::size_t>(nthread) * kDigits);
#pragma omp parallel num_threads(nthread)
  {
    const int threads = omp_get_num_threads(), t = omp_get_thread_num();
    const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
    uint32_t* own = counts.data() + static_cast<std::size_t>(t) * kDigits;
    std::vector<uint32_t> offset(kDigits);
    Elem* src = data;
    Elem* dst = scratch;
    for (int d = 0; d < 3; ++d) {
      const int shift = kShift + kRadixLow[d];
      std::fill(own, own + kDigits, 0u);
      for (std::size_t i = begin; i < end; ++i) ++own[(src[i] >> shift) & kRadixMask[d]];
#pragma omp barrier
      // Every thread reads all the counts and takes the same decision: a pass where every element
      // has the first element's digit moves nothing.
      const auto count = [&](int s, uint32_t digit) { return counts[s * kDigits + digit]; };
      const uint32_t first_digit = static_cast<uint32_t>(src[0] >> shift) & kRadixMask[d];
      uint64_t with_first = 0;
      for (int s = 0; s < threads; ++s) with_first += count(s, first_digit);
      const bool moves = with_first != n;
      if (moves) {
        uint32_t sum = 0;
        for (uint32_t digit = 0; digit <= kRadixMask[d]; ++digit) {
          for (int s = 0; s < threads; ++s) {
            if (s == t) offset[digit] = sum;
            sum += count(s, digit);
          }
        }
        for (std::size_t i = begin; i < end; ++i) {
          dst[offset[(src[i] >> shift) & kRadixMask[d]]++] = src[i];
        }
        std::swap(src, dst);
      }
      // Every move done (the next pass reads them) and every count read (the next overwrites).
#pragma omp barrier
    }
    // Every thread took the same passes, so src is the same on all.
    if (src != data) std::memcpy(data + begin, src + begin, (end - begin) * sizeof(Elem));
  }
}

// The same with scratch space `tmp`, grown as needed.
template <int kShift, typename Elem>
void RadixSortByKey(Elem* data, std::size_t n, std::vector<Elem>* tmp) {
  if (tmp->size() < n) tmp->resize(n);
  RadixSortByKey<kShift>(data, n, tmp->data());
}

// How many elements of the sorted a[0, na) are among the k smallest of a and b[0, nb) together
// (a merge path's split; the elements of a and b are distinct).
inline std::size_t MergeSplit(const uint64_t* a, std::size_t na, const uint64_t* b, std::size_t nb,
                              std::size_t k) {
  std::size_t lo = k > nb ? k - nb : 0, hi = std::min(k, na);
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (a[mid] < b[k - mid - 1]) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Sorts the distinct values data[0, n) ascending when they arrive in ascending order of their low
// 32 bits (rows keyed as key << 32 | row). Called by every thread of a parallel region, thread
// `t` of `threads`: each radix-sorts its share [ShareBegin(n, t), ShareBegin(n, t + 1)) by the
// high 32 bits, which leaves the share sorted by value; then the shares are merged pairwise, each
// merge cut among the threads by merge path, with a barrier before each round. Returns where the
// result lies (data or scratch, n elements each); the calling thread wrote the result's share t
// itself and may read it at once, the rest after a barrier. Distinct values have one sorted order,
// so the result does not depend on the thread count.
inline std::size_t ShareBegin(std::size_t n, int t, int threads) {
  return n * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
}

inline uint64_t* SortRowKeysInRegion(uint64_t* data, std::size_t n, uint64_t* scratch, int t,
                                     int threads) {
  auto bound = [&](int s) { return ShareBegin(n, std::min(s, threads), threads); };
  RadixSortByKey<32>(data + bound(t), bound(t + 1) - bound(t), scratch + bound(t));
  uint64_t* src = data;
  uint64_t* dst = scratch;
  for (int width = 1; width < threads; width *= 2) {
#pragma omp barrier
    // Pair p merges shares [2pw, 2pw + w) and [2pw + w, 2pw + 2w), cut in `threads` parts; in the
    // last round (one pair: all of it) part t is the result's share t.
    const int pairs = (threads + 2 * width - 1) / (2 * width);
    for (int task = t; task < pairs * threads; task += threads) {
      const int p = task / threads, part = task % threads;
      const std::size_t begin = bound(2 * p * width), middle = bound((2 * p + 1) * width);
      const std::size_t end = bound((2 * p + 2) * width);
      const std::size_t na = middle - begin, nb = end - middle;
      const std::size_t k0 = ShareBegin(na + nb, part, threads);
      const std::size_t k1 = ShareBegin(na + nb, part + 1, threads);
      const std::size_t i0 = MergeSplit(src + begin, na, src + middle, nb, k0);
      const std::size_t i1 = MergeSplit(src + begin, na, src + middle, nb, k1);
      std::merge(src + begin + i0, src + begin + i1, src + middle + (k0 - i0),
                 src + middle + (k1 - i1), dst + begin + k0);
    }
    std::swap(src, dst);
  }
  return src;
}

}  // namespace ringboost::detail
