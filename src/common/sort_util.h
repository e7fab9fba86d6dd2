// Sorting helpers: the quantile sketch's columns, the metrics' predictions.
//
// Floats are sorted through an order-preserving uint32 key: integer order of the keys is the
// float order of the values, with -0.0 folded onto +0.0 (they compare equal as floats, so they
// must be one distinct value). Large columns are sorted by an LSD radix sort on that key, which
// is several times faster than std::sort for the million-value columns of the benchmarks.
#pragma once

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

// Below this many elements std::sort beats the four radix passes.
constexpr std::size_t kRadixSortMinSize = 1024;

// Sorts data[0, n) ascending by the 32-bit key (elem >> kShift) & 0xffffffff: an LSD radix sort
// with digits of 11, 11 and 10 bits (three passes; counters fit in L1) that skips a pass where
// every element has the same digit. `tmp` is scratch space, grown as needed. The order of
// elements with equal keys is unspecified.
template <int kShift, typename Elem>
void RadixSortByKey(Elem* data, std::size_t n, std::vector<Elem>* tmp) {
  if (n < kRadixSortMinSize || n > 0xffffffffu) {  // counters are 32-bit
    std::sort(data, data + n);  // key in the high bits (or the whole element): same order
    return;
  }
  constexpr int kLow[3] = {0, 11, 22};
  constexpr uint32_t kMask[3] = {0x7ff, 0x7ff, 0x3ff};
  if (tmp->size() < n) tmp->resize(n);
  std::vector<uint32_t> hist(3 * 2048, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const uint32_t key = static_cast<uint32_t>(data[i] >> kShift);
    ++hist[key & 0x7ff];
    ++hist[2048 + ((key >> 11) & 0x7ff)];
    ++hist[4096 + (key >> 22)];
  }
  Elem* src = data;
  Elem* dst = tmp->data();
  for (int d = 0; d < 3; ++d) {
    uint32_t* offset = hist.data() + 2048 * d;
    const uint32_t first_digit = (static_cast<uint32_t>(src[0] >> kShift) >> kLow[d]) & kMask[d];
    if (offset[first_digit] == n) continue;
    uint32_t sum = 0;
    for (uint32_t b = 0; b <= kMask[d]; ++b) {
      const uint32_t count = offset[b];
      offset[b] = sum;
      sum += count;
    }
    const int shift = kShift + kLow[d];
    for (std::size_t i = 0; i < n; ++i) dst[offset[(src[i] >> shift) & kMask[d]]++] = src[i];
    std::swap(src, dst);
  }
  if (src != data) std::memcpy(data, src, n * sizeof(Elem));
}

}  // namespace ringboost::detail
