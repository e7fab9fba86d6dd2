// The CPU row loop around ElementwiseGradient (elementwise.h holds the per-row arithmetic that the
// CUDA kernel shares).
#include "objective/elementwise.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "objective/objectives.h"

namespace ringboost {
namespace {

// |v| as its bits: on non-negative floats their integer order is the float order, and every NaN
// lies above +inf, so the largest of them gives the largest |v| and whether all are finite, in
// integer lanes (a float maximum does not vectorize without dropping NaN's ordering rules).
inline uint32_t AbsBits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits & 0x7fffffffu;
}
constexpr uint32_t kInfinityBits = 0x7f800000u;

// Running maxima of AbsBits of a group's gradients and hessians.
struct MaxBits {
  uint32_t grad = 0;
  uint32_t hess = 0;
  void Add(const GradPair& p) {
    grad = std::max(grad, AbsBits(p.grad));
    hess = std::max(hess, AbsBits(p.hess));
  }
  // Add of pairs[0, n), in lanes: each 8 of its words at once (a pair is 2 words).
  void AddPairs(const GradPair* pairs, int64_t n) {
    using Word = uint32_t __attribute__((may_alias));
    const Word* words = reinterpret_cast<const Word*>(pairs);
    uint32_t lanes[8] = {};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      for (int l = 0; l < 8; ++l) lanes[l] = std::max(lanes[l], words[2 * i + l] & 0x7fffffffu);
    }
    for (int l = 0; l < 8; l += 2) {
      grad = std::max(grad, lanes[l]);
      hess = std::max(hess, lanes[l + 1]);
    }
    for (; i < n; ++i) Add(pairs[i]);
  }
  void Add(const MaxBits& o) {
    grad = std::max(grad, o.grad);
    hess = std::max(hess, o.hess);
  }
  GradientMaxima ToMaxima() const {
    float g, h;
    std::memcpy(&g, &grad, sizeof(g));
    std::memcpy(&h, &hess, sizeof(h));
    return GradientMaxima{g, h, grad < kInfinityBits && hess < kInfinityBits};
  }
};

// One loss of the reg/binary family (one margin a row) over rows [begin, end): RegLossGradient in
// lanes. The loss and the weights' presence are constants here, so that the loop has no branch
// and the compiler vectorizes it (this file is built with -fno-trapping-math, without which it
// keeps the selects as branches; values are unchanged). Returns whether some label is invalid.
template <ElementwiseLoss kLoss, bool kWeighted>
__attribute__((always_inline)) inline int RegLossLoop(ElementwiseSpec spec, const float* margin,
                                                      const float* label, const float* weight,
                                                      int64_t begin, int64_t end, GradPair* out,
                                                      MaxBits* maxima) {
  spec.loss = kLoss;
  int bad = 0;
  MaxBits m;
  // The maxima of each chunk once it is written, while it is in cache: inside the gradient loop
  // they keep the compiler from vectorizing it.
  constexpr int64_t kChunk = 2048;
  for (int64_t chunk = begin; chunk < end; chunk += kChunk) {
    const int64_t chunk_end = std::min(end, chunk + kChunk);
    for (int64_t i = chunk; i < chunk_end; ++i) {
      bad |= !ElementwiseLabelOk(spec, label[i]);
      out[i] = elementwise_detail::RegLossGradient<true>(spec, margin[i], label[i],
                                                         kWeighted ? weight[i] : 1.0f);
    }
    m.AddPairs(out + chunk, chunk_end - chunk);
  }
  *maxima = m;
  return bad;
}

template <ElementwiseLoss kLoss>
__attribute__((always_inline)) inline int RegLossLoop(const ElementwiseSpec& spec,
                                                      const float* margin, const float* label,
                                                      const float* weight, int64_t begin,
                                                      int64_t end, GradPair* out, MaxBits* maxima) {
  return weight != nullptr
             ? RegLossLoop<kLoss, true>(spec, margin, label, weight, begin, end, out, maxima)
             : RegLossLoop<kLoss, false>(spec, margin, label, weight, begin, end, out, maxima);
}

__attribute__((always_inline)) inline int RegLossRows(const ElementwiseSpec& spec,
                                                      const float* margin, const float* label,
                                                      const float* weight, int64_t begin,
                                                      int64_t end, GradPair* out, MaxBits* maxima) {
  switch (spec.loss) {
    case ElementwiseLoss::kSquared:
      return RegLossLoop<ElementwiseLoss::kSquared>(spec, margin, label, weight, begin, end, out,
                                                    maxima);
    case ElementwiseLoss::kLogistic:
      return RegLossLoop<ElementwiseLoss::kLogistic>(spec, margin, label, weight, begin, end, out,
                                                     maxima);
    default:
      return RegLossLoop<ElementwiseLoss::kLogitRaw>(spec, margin, label, weight, begin, end, out,
                                                     maxima);
  }
}

// RegLossRows compiled for each instruction set (the same IEEE operations in wider lanes).
using RegLossRowsFn = int (*)(const ElementwiseSpec&, const float*, const float*, const float*,
                              int64_t, int64_t, GradPair*, MaxBits*);

int RegLossRowsBaseline(const ElementwiseSpec& spec, const float* margin, const float* label,
                        const float* weight, int64_t begin, int64_t end, GradPair* out,
                        MaxBits* maxima) {
  return RegLossRows(spec, margin, label, weight, begin, end, out, maxima);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) int RegLossRowsAvx2(const ElementwiseSpec& spec,
                                                    const float* margin, const float* label,
                                                    const float* weight, int64_t begin, int64_t end,
                                                    GradPair* out, MaxBits* maxima) {
  return RegLossRows(spec, margin, label, weight, begin, end, out, maxima);
}

__attribute__((target("avx512f"))) int RegLossRowsAvx512(const ElementwiseSpec& spec,
                                                         const float* margin, const float* label,
                                                         const float* weight, int64_t begin,
                                                         int64_t end, GradPair* out,
                                                         MaxBits* maxima) {
  return RegLossRows(spec, margin, label, weight, begin, end, out, maxima);
}
#endif

// Sigmoid<true> of values [begin, end), in place, in lanes: the scalar Sigmoid's bits, whose NaN
// is its input's, quieted (the lanes' selects may return another NaN).
__attribute__((always_inline)) inline void SigmoidLoop(float* values, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    const float x = values[i];
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof(bits));
    bits |= 0x00400000u;
    float quiet;
    std::memcpy(&quiet, &bits, sizeof(quiet));
    const float s = Sigmoid<true>(x);
    values[i] = x != x ? quiet : s;
  }
}

using SigmoidRowsFn = void (*)(float*, int64_t, int64_t);

void SigmoidRowsBaseline(float* values, int64_t begin, int64_t end) {
  SigmoidLoop(values, begin, end);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) void SigmoidRowsAvx2(float* values, int64_t begin, int64_t end) {
  SigmoidLoop(values, begin, end);
}

__attribute__((target("avx512f"))) void SigmoidRowsAvx512(float* values, int64_t begin,
                                                          int64_t end) {
  SigmoidLoop(values, begin, end);
}
#endif

// The loop compiled for `isa` (kBest: the widest this CPU has) among its three builds.
template <typename Fn>
Fn PickIsa(GradientIsa isa, Fn baseline, Fn avx2, Fn avx512) {
  if (isa == GradientIsa::kBest) {
    isa = GradientIsaAvailable(GradientIsa::kAvx512) ? GradientIsa::kAvx512
          : GradientIsaAvailable(GradientIsa::kAvx2) ? GradientIsa::kAvx2
                                                     : GradientIsa::kBaseline;
  }
  RB_CHECK_MSG(GradientIsaAvailable(isa), "instruction set " << static_cast<int>(isa));
  if (isa == GradientIsa::kAvx512) return avx512;
  if (isa == GradientIsa::kAvx2) return avx2;
  return baseline;
}

RegLossRowsFn RegLossRowsFor(GradientIsa isa) {
#if defined(__x86_64__) && defined(__GNUC__)
  return PickIsa<RegLossRowsFn>(isa, RegLossRowsBaseline, RegLossRowsAvx2, RegLossRowsAvx512);
#else
  return PickIsa<RegLossRowsFn>(isa, RegLossRowsBaseline, nullptr, nullptr);
#endif
}

SigmoidRowsFn SigmoidRowsFor(GradientIsa isa) {
#if defined(__x86_64__) && defined(__GNUC__)
  return PickIsa<SigmoidRowsFn>(isa, SigmoidRowsBaseline, SigmoidRowsAvx2, SigmoidRowsAvx512);
#else
  return PickIsa<SigmoidRowsFn>(isa, SigmoidRowsBaseline, nullptr, nullptr);
#endif
}

}  // namespace

bool GradientIsaAvailable(GradientIsa isa) {
  switch (isa) {
    case GradientIsa::kBest:
    case GradientIsa::kBaseline:
      return true;
#if defined(__x86_64__) && defined(__GNUC__)
    case GradientIsa::kAvx2:
      return __builtin_cpu_supports("avx2");
    case GradientIsa::kAvx512:
      return __builtin_cpu_supports("avx512f");
#endif
    default:
      return false;
  }
}

void ElementwiseGradients(const ElementwiseSpec& spec, const char* label_rule, const DataSet& data,
                          const std::vector<float>& preds, int nthread, std::vector<GradPair>* out,
                          std::vector<GradientMaxima>* maxima, GradientIsa isa) {
  const int k = spec.num_class;
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  RB_CHECK_MSG(preds.size() == static_cast<size_t>(rows) * k && data.label.size() == data.NumRows(),
               "preds " << preds.size() << ", labels " << data.label.size() << ", groups " << k);
  out->resize(preds.size());
  int bad = 0;
  std::vector<MaxBits> all(k);
  const bool reg_loss = spec.loss == ElementwiseLoss::kSquared ||
                        spec.loss == ElementwiseLoss::kLogistic ||
                        spec.loss == ElementwiseLoss::kLogitRaw;
  const float* weight = data.weight.empty() ? nullptr : data.weight.data();
  const RegLossRowsFn rows_fn = reg_loss ? RegLossRowsFor(isa) : nullptr;
#pragma omp parallel num_threads(nthread) reduction(| : bad)
  {
    const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t begin = rows * t / threads, end = rows * (t + 1) / threads;
    std::vector<MaxBits> mine(k);
    if (reg_loss) {
      bad |= rows_fn(spec, preds.data(), data.label.data(), weight, begin, end, out->data(),
                     mine.data());
    } else {
      for (int64_t i = begin; i < end; ++i) {
        const float label = data.label[i];
        bad |= !ElementwiseLabelOk(spec, label);
        GradPair* row = &(*out)[i * k];
        ElementwiseGradient(spec, &preds[i * k], label, data.Weight(i), row);
        for (int c = 0; c < k; ++c) mine[c].Add(row[c]);
      }
    }
#pragma omp critical
    for (int c = 0; c < k; ++c) all[c].Add(mine[c]);
  }
  if (bad) RB_FAIL(data.name << ": " << label_rule);
  if (maxima != nullptr) {
    maxima->resize(k);
    for (int c = 0; c < k; ++c) (*maxima)[c] = all[c].ToMaxima();
  }
}

bool ElementwiseObjective::GetGradientAndMaxima(const DataSet& data,
                                                const std::vector<float>& preds, int iter,
                                                std::vector<GradPair>* out,
                                                std::vector<GradientMaxima>* maxima) const {
  (void)iter;
  ElementwiseGradients(spec_, label_rule_, data, preds, nthread_, out, maxima);
  return true;
}

void SigmoidInPlace(std::vector<float>* values, int nthread, GradientIsa isa) {
  const SigmoidRowsFn rows_fn = SigmoidRowsFor(isa);
  const int64_t n = static_cast<int64_t>(values->size());
  // Below a few thousand values a second thread costs more than it saves.
  if (n < 8192) nthread = 1;
#pragma omp parallel num_threads(nthread)
  {
    const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    rows_fn(values->data(), n * t / threads, n * (t + 1) / threads);
  }
}

}  // namespace ringboost
