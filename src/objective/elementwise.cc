// The CPU row loop around ElementwiseGradient (elementwise.h holds the per-row arithmetic that the
// CUDA kernel shares).
#include "objective/elementwise.h"

#include <omp.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "objective/objectives.h"

namespace ringboost {
namespace {

// One loss of the reg/binary family (one margin a row) over rows [begin, end): RegLossGradient in
// lanes. The loss and the weights' presence are constants here, so that the loop has no branch
// and the compiler vectorizes it (this file is built with -fno-trapping-math, without which it
// keeps the selects as branches; values are unchanged). Returns whether some label is invalid.
template <ElementwiseLoss kLoss, bool kWeighted>
__attribute__((always_inline)) inline int RegLossLoop(ElementwiseSpec spec, const float* margin,
                                                      const float* label, const float* weight,
                                                      int64_t begin, int64_t end, GradPair* out) {
  spec.loss = kLoss;
  int bad = 0;
  for (int64_t i = begin; i < end; ++i) {
    bad |= !ElementwiseLabelOk(spec, label[i]);
    out[i] = elementwise_detail::RegLossGradient<true>(spec, margin[i], label[i],
                                                       kWeighted ? weight[i] : 1.0f);
  }
  return bad;
}

template <ElementwiseLoss kLoss>
__attribute__((always_inline)) inline int RegLossLoop(const ElementwiseSpec& spec,
                                                      const float* margin, const float* label,
                                                      const float* weight, int64_t begin,
                                                      int64_t end, GradPair* out) {
  return weight != nullptr
             ? RegLossLoop<kLoss, true>(spec, margin, label, weight, begin, end, out)
             : RegLossLoop<kLoss, false>(spec, margin, label, weight, begin, end, out);
}

__attribute__((always_inline)) inline int RegLossRows(const ElementwiseSpec& spec,
                                                      const float* margin, const float* label,
                                                      const float* weight, int64_t begin,
                                                      int64_t end, GradPair* out) {
  switch (spec.loss) {
    case ElementwiseLoss::kSquared:
      return RegLossLoop<ElementwiseLoss::kSquared>(spec, margin, label, weight, begin, end, out);
    case ElementwiseLoss::kLogistic:
      return RegLossLoop<ElementwiseLoss::kLogistic>(spec, margin, label, weight, begin, end, out);
    default:
      return RegLossLoop<ElementwiseLoss::kLogitRaw>(spec, margin, label, weight, begin, end, out);
  }
}

// RegLossRows compiled for each instruction set (the same IEEE operations in wider lanes).
using RegLossRowsFn = int (*)(const ElementwiseSpec&, const float*, const float*, const float*,
                              int64_t, int64_t, GradPair*);

int RegLossRowsBaseline(const ElementwiseSpec& spec, const float* margin, const float* label,
                        const float* weight, int64_t begin, int64_t end, GradPair* out) {
  return RegLossRows(spec, margin, label, weight, begin, end, out);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) int RegLossRowsAvx2(const ElementwiseSpec& spec,
                                                    const float* margin, const float* label,
                                                    const float* weight, int64_t begin, int64_t end,
                                                    GradPair* out) {
  return RegLossRows(spec, margin, label, weight, begin, end, out);
}

__attribute__((target("avx512f"))) int RegLossRowsAvx512(const ElementwiseSpec& spec,
                                                         const float* margin, const float* label,
                                                         const float* weight, int64_t begin,
                                                         int64_t end, GradPair* out) {
  return RegLossRows(spec, margin, label, weight, begin, end, out);
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
                          GradientIsa isa) {
  const int k = spec.num_class;
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  RB_CHECK_MSG(preds.size() == static_cast<size_t>(rows) * k && data.label.size() == data.NumRows(),
               "preds " << preds.size() << ", labels " << data.label.size() << ", groups " << k);
  out->resize(preds.size());
  int bad = 0;
  if (spec.loss == ElementwiseLoss::kSquared || spec.loss == ElementwiseLoss::kLogistic ||
      spec.loss == ElementwiseLoss::kLogitRaw) {
    const float* weight = data.weight.empty() ? nullptr : data.weight.data();
    const RegLossRowsFn rows_fn = RegLossRowsFor(isa);
#pragma omp parallel num_threads(nthread) reduction(| : bad)
    {
      const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
      bad |= rows_fn(spec, preds.data(), data.label.data(), weight, rows * t / threads,
                     rows * (t + 1) / threads, out->data());
    }
  } else {
#pragma omp parallel for schedule(static) num_threads(nthread) reduction(| : bad)
    for (int64_t i = 0; i < rows; ++i) {
      const float label = data.label[i];
      bad |= !ElementwiseLabelOk(spec, label);
      ElementwiseGradient(spec, &preds[i * k], label, data.Weight(i), &(*out)[i * k]);
    }
  }
  if (bad) RB_FAIL(data.name << ": " << label_rule);
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
