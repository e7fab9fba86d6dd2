// The CPU row loop around ElementwiseGradient (elementwise.h holds the per-row arithmetic that the
// CUDA kernel shares).
#include "objective/elementwise.h"

#include <omp.h>

#include <cstdint>
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

RegLossRowsFn RegLossRowsFor(GradientIsa isa) {
  if (isa == GradientIsa::kBest) {
    isa = GradientIsaAvailable(GradientIsa::kAvx512) ? GradientIsa::kAvx512
          : GradientIsaAvailable(GradientIsa::kAvx2) ? GradientIsa::kAvx2
                                                     : GradientIsa::kBaseline;
  }
  RB_CHECK_MSG(GradientIsaAvailable(isa), "instruction set " << static_cast<int>(isa));
#if defined(__x86_64__) && defined(__GNUC__)
  if (isa == GradientIsa::kAvx512) return RegLossRowsAvx512;
  if (isa == GradientIsa::kAvx2) return RegLossRowsAvx2;
#endif
  return RegLossRowsBaseline;
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

}  // namespace ringboost
