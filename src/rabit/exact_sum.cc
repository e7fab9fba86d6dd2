#include "rabit/exact_sum.h"

#include <cmath>
#include <cstring>

namespace ringboost::rabit {

void ExactFloatSum::Add(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const int biased = static_cast<int>((bits >> 23) & 0xFF);
  if (biased == 0xFF) {
    special_ += v;
    return;
  }
  // Normal: (2^23 + frac) 2^(biased - 150); subnormal: frac 2^-149, as p = 0.
  const uint64_t m = (bits & 0x7FFFFF) | (biased != 0 ? 0x800000u : 0u);
  const int p = biased != 0 ? biased - 1 : 0;
  const uint64_t shifted = m << (p % 32);
  const int lane = p / 32;
  const int64_t lo = static_cast<int64_t>(shifted & 0xFFFFFFFFu);
  const int64_t hi = static_cast<int64_t>(shifted >> 32);
  if (bits >> 31) {
    lanes_[lane] -= lo;
    lanes_[lane + 1] -= hi;
  } else {
    lanes_[lane] += lo;
    lanes_[lane + 1] += hi;
  }
}

void ExactFloatSum::AddProduct(float a, float b) {
  // a b has at most 48 significant bits; its float rounding takes the top 24 and the remainder
  // (below half an ulp of it) fits the other 24, so both parts are exact.
  const double product = static_cast<double>(a) * static_cast<double>(b);
  const float high = static_cast<float>(product);
  Add(high);
  if (std::isfinite(high)) Add(static_cast<float>(product - static_cast<double>(high)));
}

void ExactFloatSum::Merge(const ExactFloatSum& other) {
  for (int i = 0; i < kLanes; ++i) lanes_[i] += other.lanes_[i];
  special_ += other.special_;
}

double ExactFloatSum::Value() const {
  if (special_ != 0.0 || std::isnan(special_)) return special_;
  // Carry so that every lane but the top one is in [0, 2^32): the same lanes give the same
  // digits, and the double is summed from the top one down.
  int64_t l[kLanes];
  std::memcpy(l, lanes_, sizeof(l));
  for (int i = 0; i + 1 < kLanes; ++i) {
    const int64_t carry = l[i] >> 32;  // floor division by 2^32
    l[i] -= carry * (int64_t{1} << 32);
    l[i + 1] += carry;
  }
  double v = 0.0;
  for (int i = kLanes - 1; i >= 0; --i) v += std::ldexp(static_cast<double>(l[i]), 32 * i - 149);
  return v;
}

void ExactFloatSum::ToWords(int64_t* out) const {
  std::memcpy(out, lanes_, sizeof(lanes_));
  std::memcpy(out + kLanes, &special_, sizeof(special_));
}

void ExactFloatSum::FromWords(const int64_t* in) {
  std::memcpy(lanes_, in, sizeof(lanes_));
  std::memcpy(&special_, in + kLanes, sizeof(special_));
}

void AllreduceExactSums(Communicator* comm, ExactFloatSum* sums, int count) {
  if (comm == nullptr || comm->WorldSize() <= 1) return;
  constexpr int kWords = ExactFloatSum::kLanes + 1;
  std::vector<int64_t> lanes(count * ExactFloatSum::kLanes);
  std::vector<double> special(count);
  for (int i = 0; i < count; ++i) {
    int64_t words[kWords];
    sums[i].ToWords(words);
    std::memcpy(&lanes[i * ExactFloatSum::kLanes], words, ExactFloatSum::kLanes * sizeof(int64_t));
    std::memcpy(&special[i], words + ExactFloatSum::kLanes, sizeof(double));
  }
  comm->Allreduce(Span<int64_t>(lanes.data(), lanes.size()), Op::kSum);
  comm->Allreduce(Span<double>(special.data(), special.size()), Op::kSum);
  for (int i = 0; i < count; ++i) {
    int64_t words[kWords];
    std::memcpy(words, &lanes[i * ExactFloatSum::kLanes], ExactFloatSum::kLanes * sizeof(int64_t));
    std::memcpy(words + ExactFloatSum::kLanes, &special[i], sizeof(double));
    sums[i].FromWords(words);
  }
}

}  // namespace ringboost::rabit
