// auc and aucpr as XGBoost 1.7's auc.cc computes them:
//  * binary: weighted ROC AUC by trapezoids over blocks of tied predictions, normalised by
//    (weighted negatives x weighted positives); PR AUC by XGBoost's interpolated PR curve;
//  * multi-class (rows x num_class): one-vs-rest, weighted by class prevalence (ROC) or a plain
//    mean (PR);
//  * with query groups: the mean over groups of each group's AUC (ROC: pairs by label order,
//    groups under 3 items are skipped; PR: binary PR AUC with the group's weight).
// Binary and multi-class AUC are not sums of per-row terms, so with several workers every
// worker gathers all rows (rank order = the whole data's order) and the value is exact.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/logging.h"
#include "common/sort_util.h"
#include "data/query_groups.h"
#include "metric/metric_reduce.h"
#include "metric/metrics.h"

namespace ringboost {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Weight of row i: the row's weight, or `dft` when there are none (XGBoost's OptionalWeights).
struct Weights {
  const std::vector<float>* w = nullptr;
  float dft = 1.0f;
  float operator[](size_t i) const { return (w == nullptr || w->empty()) ? dft : (*w)[i]; }
};

// Rows by prediction, largest first, ties in row order (a stable sort), with what the curve reads
// of each: a radix sort of (reversed order-preserving key, row) pairs, several times faster than a
// comparison sort on the 200k-row eval sets evaluated every round, on `nthread` threads (the
// order is unique, so the threads cannot change it), then the rows' values gathered in that order
// so that the curve's serial pass reads them in sequence.
struct SortedRows {
  std::vector<float> pred, label, weight;  // weight: empty when every row weighs weights.dft
};

// What a sort needs besides its output; kept by the metric from round to round, so that the
// buffers are neither allocated nor cleared again.
struct SortScratch {
  std::vector<uint64_t> keyed, spare;
  SortedRows rows;
  std::vector<uint32_t> keys, key_spare;  // PlainRocAuc's: the negatives' keys, the positives'
};

const SortedRows& SortDescending(const std::vector<float>& preds, const std::vector<float>& labels,
                                 Weights weights, int nthread, SortScratch* scratch) {
  const size_t n = preds.size();
  const bool weighted = weights.w != nullptr && !weights.w->empty();
  SortedRows& out = scratch->rows;
  out.pred.resize(n);
  out.label.resize(n);
  out.weight.resize(weighted ? n : 0);
  auto key_of = [&](size_t i) { return std::isnan(preds[i]) ? 0u : ~detail::FloatToKey(preds[i]); };
  if (n > 0xffffffffu) {  // rows do not fit the 32 low bits of a sorted element
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), size_t{0});
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t a, size_t b) { return key_of(a) < key_of(b); });
    for (size_t i = 0; i < n; ++i) {
      out.pred[i] = preds[idx[i]];
      out.label[i] = labels[idx[i]];
      if (weighted) out.weight[i] = (*weights.w)[idx[i]];
    }
    return out;
  }
  if (n < 16384) nthread = 1;  // below this a second thread costs more than it saves
  scratch->keyed.resize(n);
  scratch->spare.resize(n);
  uint64_t* keyed = scratch->keyed.data();
  uint64_t* spare = scratch->spare.data();
  // One region, one barrier per merge round: each thread keys and sorts its share of the rows,
  // then gathers the share of the result that it merged itself.
#pragma omp parallel num_threads(nthread)
  {
    const int t = omp_get_thread_num(), threads = omp_get_num_threads();
    const size_t begin = detail::ShareBegin(n, t, threads);
    const size_t end = detail::ShareBegin(n, t + 1, threads);
    for (size_t i = begin; i < end; ++i) keyed[i] = (static_cast<uint64_t>(key_of(i)) << 32) | i;
    const uint64_t* sorted = detail::SortRowKeysInRegion(keyed, n, spare, t, threads);
    for (size_t i = begin; i < end; ++i) {
      const size_t row = sorted[i] & 0xffffffffu;
      out.pred[i] = preds[row];
      out.label[i] = labels[row];
      if (weighted) out.weight[i] = (*weights.w)[row];
    }
  }
  return out;
}

// (fp, tp, area): area under the curve made of the cumulative weighted negatives (fp) and
// positives (tp) as the threshold passes each block of tied predictions, not yet normalised.
// area_fn(fp_prev, fp, tp_prev, tp) is the area of one block. The pass is serial: its double sums
// are rounded in row order of the sorted rows, as XGBoost's are.
template <typename AreaFn>
std::tuple<double, double, double> BinaryAuc(const std::vector<float>& preds,
                                             const std::vector<float>& labels, Weights weights,
                                             AreaFn area_fn, int nthread, SortScratch* scratch) {
  if (preds.empty()) return {0.0, 0.0, 0.0};
  const SortedRows& sorted = SortDescending(preds, labels, weights, nthread, scratch);
  const float* pred = sorted.pred.data();
  const float* y = sorted.label.data();
  const Weights w{&sorted.weight, weights.dft};
  float label = y[0];
  double fp = (1.0 - label) * w[0], tp = label * w[0];
  double fp_prev = 0, tp_prev = 0, auc = 0;
  for (size_t i = 1; i < preds.size(); ++i) {
    if (pred[i] != pred[i - 1]) {
      auc += area_fn(fp_prev, fp, tp_prev, tp);
      fp_prev = fp;
      tp_prev = tp;
    }
    label = y[i];
    const float wi = w[i];
    fp += (1.0f - label) * wi;
    tp += label * wi;
  }
  auc += area_fn(fp_prev, fp, tp_prev, tp);
  if (fp <= 0.0 || tp <= 0.0) return {0.0, 0.0, 0.0};
  return {fp, tp, auc};
}

double TrapezoidArea(double x0, double x1, double y0, double y1) {
  return std::abs(x0 - x1) * (y0 + y1) * 0.5f;
}

// BinaryAuc's ROC (fp, tp, area) where every row weighs 1, every label is 0 or 1 and no
// prediction is NaN (plain rows), from the two classes' keys sorted apart. A block of tied
// predictions then adds (its negatives) x (2 x the positives above it + its own) / 2, a multiple
// of 1/2, and while twice the sum stays below 2^53 every partial sum of those doubles is exact: the
// area is the same number in any order, the Mann-Whitney count over the negatives of the
// positives above (twice) and beside each. So neither the rows' order nor a gather is needed, and
// the sorted elements are 4-byte keys. Returns false where the rows are not plain or too many.
bool PlainRocAuc(const std::vector<float>& preds, const std::vector<float>& labels, Weights weights,
                 int nthread, SortScratch* scratch, std::tuple<double, double, double>* out) {
  const size_t n = preds.size();
  if (weights.dft != 1.0f || n >= (size_t{1} << 26)) {
    return false;  // below 2^26 rows, twice the area (at most n^2 / 2) stays below 2^51
  }
  // Weights given (as every worker's gathered rows have) are plain where each is 1.
  const float* weight = weights.w != nullptr && !weights.w->empty() ? weights.w->data() : nullptr;
  nthread = n < 16384 ? 1 : std::max(1, std::min(nthread, 2));  // a class's keys a thread
  std::vector<uint32_t>& keys = scratch->keys;
  keys.resize(n);
  scratch->key_spare.resize(n);
  // The negatives' keys in `keys`, the positives' in key_spare.
  std::array<size_t, 2> count{0, 0};
  bool plain = true;
  uint64_t twice_area = 0;
#pragma omp parallel num_threads(nthread) reduction(+ : twice_area)
  {
    const int t = omp_get_thread_num(), threads = omp_get_num_threads();
    // Each thread picks its class's rows from all the rows (no count first, no branch) and sorts
    // them; the negatives' thread also checks that the rows are plain, and none goes on if not.
    for (int c = t; c < 2; c += threads) {
      const float label = c == 0 ? 0.0f : 1.0f;
      uint32_t* const into = c == 0 ? keys.data() : scratch->key_spare.data();
      size_t k = 0;
      bool ok = true;
      for (size_t i = 0; i < n; ++i) {
        into[k] = ~detail::FloatToKey(preds[i]);
        k += labels[i] == label;
        if (c == 0) ok &= ((labels[i] == 0.0f) | (labels[i] == 1.0f)) & !std::isnan(preds[i]);
      }
      if (c == 0 && weight != nullptr) {
        for (size_t i = 0; i < n; ++i) ok &= weight[i] == 1.0f;
      }
      if (c == 0) plain = ok;
      count[c] = k;
    }
#pragma omp barrier
    if (plain) {  // the same on every thread after the barrier
      // The negatives sort in keys[0, N) with key_spare[P, n) to spare, the positives in
      // key_spare[0, P) with keys[N, n).
      for (int c = t; c < 2; c += threads) {
        uint32_t* const data = c == 0 ? keys.data() : scratch->key_spare.data();
        uint32_t* const spare =
            c == 0 ? scratch->key_spare.data() + count[1] : keys.data() + count[0];
        detail::RadixSortByKey<0>(data, count[c], spare);
      }
#pragma omp barrier
      // For its share of the sorted negatives, each thread counts the positives below each
      // negative's key (a larger prediction; twice) and equal to it, in one merge without a branch
      // on the order: a positive taken before negative i lies below every negative from i on.
      const uint32_t* negative = keys.data();
      const size_t positives = count[1];
      const uint32_t* positive = scratch->key_spare.data();
      const size_t from = detail::ShareBegin(count[0], t, threads);
      const size_t to = detail::ShareBegin(count[0], t + 1, threads);
      if (from < to) {
        size_t j = std::lower_bound(positive, positive + positives, negative[from]) - positive;
        twice_area += 2 * j * (to - from);
        uint32_t tie_key = 0;
        uint64_t tie_count = 0;  // positives with key tie_key (0 before the first tie)
        for (size_t i = from; i < to && j < positives;) {
          const bool take = positive[j] < negative[i];
          twice_area += take ? 2 * (to - i) : 0;
          j += take;
          i += !take;
          if (!take && positive[j] == negative[i - 1]) {  // negative i - 1 ties with positives
            if (tie_count == 0 || tie_key != negative[i - 1]) {
              tie_key = negative[i - 1];
              tie_count = 0;
              while (j + tie_count < positives && positive[j + tie_count] == tie_key) ++tie_count;
            }
            twice_area += tie_count;
          }
        }
      }
    }
  }
  if (!plain) return false;
  if (count[0] == 0 || count[1] == 0) {
    *out = {0.0, 0.0, 0.0};
  } else {
    *out = {static_cast<double>(count[0]), static_cast<double>(count[1]),
            static_cast<double>(twice_area) * 0.5};
  }
  return true;
}

std::tuple<double, double, double> BinaryRocAuc(const std::vector<float>& preds,
                                                const std::vector<float>& labels, Weights w,
                                                int nthread, SortScratch* scratch) {
  std::tuple<double, double, double> plain;
  if (PlainRocAuc(preds, labels, w, nthread, scratch, &plain)) return plain;
  auto area = [](double fp_prev, double fp, double tp_prev, double tp) {
    return TrapezoidArea(fp_prev, fp, tp_prev, tp);
  };
  return BinaryAuc(preds, labels, w, area, nthread, scratch);
}

// Area of one PR block between recalls tp_prev/total_pos and tp/total_pos, interpolating
// precision along the block (Davis & Goadrich), as XGBoost's detail::CalcDeltaPRAUC.
double DeltaPrAuc(double fp_prev, double fp, double tp_prev, double tp, double total_pos) {
  const double pr_prev = tp_prev / total_pos, pr = tp / total_pos;
  double a = 1.0, b = 0.0;
  if (tp != tp_prev) {
    const double h = (fp - fp_prev) / (tp - tp_prev);
    a = h + 1;
    b = (fp_prev - h * tp_prev) / total_pos;
  }
  if (b != 0.0)
    return (pr - pr_prev - b / a * (std::log(a * pr + b) - std::log(a * pr_prev + b))) / a;
  return (pr - pr_prev) / a;
}

// (1, 1, area): already normalised; NaN area without both classes.
std::tuple<double, double, double> BinaryPrAuc(const std::vector<float>& preds,
                                               const std::vector<float>& labels, Weights w,
                                               int nthread, SortScratch* scratch) {
  double total_pos = 0, total_neg = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    total_pos += w[i] * labels[i];
    total_neg += w[i] * (1.0f - labels[i]);
  }
  if (total_pos <= 0 || total_neg <= 0) return {1.0, 1.0, kNaN};
  auto area = [total_pos](double fp_prev, double fp, double tp_prev, double tp) {
    return DeltaPrAuc(fp_prev, fp, tp_prev, tp, total_pos);
  };
  return {1.0, 1.0, std::get<2>(BinaryAuc(preds, labels, w, area, nthread, scratch))};
}

// One query group's ROC AUC: every pair of items (ordered by label, descending, stably) scores
// 1 when the first is predicted higher, 0.5 on a tie, each with weight w^2 (XGBoost counts all
// pairs, equal labels included).
double GroupRankingRoc(const float* preds, const float* labels, size_t n, float w) {
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(),
                   [&](size_t a, size_t b) { return labels[a] > labels[b]; });
  w = w * w;
  double auc = 0, sum_w = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const float d = preds[idx[i]] - preds[idx[j]];
      const float score = d > 0 ? 1.0f : (d == 0 ? 0.5f : 0.0f);
      auc += score * w;
      sum_w += w;
    }
  }
  return sum_w != 0 ? auc / sum_w : auc;
}

class AucMetric : public Metric {
 public:
  AucMetric(bool roc, int nthread) : roc_(roc), nthread_(nthread) {}
  std::string Name() const override { return roc_ ? "auc" : "aucpr"; }
  bool Maximize() const override { return true; }

  double Eval(const std::vector<float>& preds, int num_groups, const DataSet& data,
              rabit::Communicator* comm) const override {
    const double value = Value(preds, num_groups, data, comm);
    // XGBoost warns of a NaN AUC every round; once per eval set is enough to say why.
    if (std::isnan(value) && (comm == nullptr || comm->Rank() == 0) &&
        warned_.insert(data.name).second) {
      RB_LOG(kWarning, Name() << " of '" << data.name << "' is nan: it has no rows, or only "
                              << "positive or only negative ones (by weight), or labels "
                              << "outside [0, 1]"
                              << (num_groups > 1 ? ", or a class without rows" : "")
                              << (data.group_ptr.empty() ? "" : ", or no query group to score")
                              << "; XGBoost gives nan there too");
    }
    return value;
  }

 private:
  double Value(const std::vector<float>& preds, int num_groups, const DataSet& data,
               rabit::Communicator* comm) const {
    if (num_groups < 1 || preds.size() != data.NumRows() * num_groups) {
      RB_FAIL("eval_metric=" << Name() << ": " << preds.size() << " predictions for "
                             << data.NumRows() << " rows");
    }
    if (metric_detail::AnyWorker(comm, !data.group_ptr.empty())) {
      if (num_groups != 1) RB_FAIL("eval_metric=" << Name() << ": ranking needs one output");
      return RankingAuc(preds, data, comm);
    }
    std::vector<float> gathered_labels, gathered_weights, gathered_preds;
    const bool gathered = metric_detail::IsDistributed(comm);
    if (gathered) {
      metric_detail::GatherRows(preds, num_groups, data, comm, &gathered_labels, &gathered_weights,
                                &gathered_preds);
    }
    // In a world of one the local rows, read in place.
    const std::vector<float>& labels = gathered ? gathered_labels : data.label;
    const std::vector<float>& weights = gathered ? gathered_weights : data.weight;
    const std::vector<float>& all_preds = gathered ? gathered_preds : preds;
    if (labels.empty()) return kNaN;
    if (num_groups == 1) {
      auto [fp, tp, auc] =
          roc_ ? BinaryRocAuc(all_preds, labels, Weights{&weights}, nthread_, &scratch_)
               : BinaryPrAuc(all_preds, labels, Weights{&weights}, nthread_, &scratch_);
      return fp * tp <= 0 ? kNaN : auc / (fp * tp);
    }
    return MultiClassOvr(all_preds, labels, weights, num_groups);
  }

  // One-vs-rest over classes (XGBoost's MultiClassOVR with all rows present).
  double MultiClassOvr(const std::vector<float>& preds, const std::vector<float>& labels,
                       const std::vector<float>& weights, int k) const {
    const size_t rows = labels.size();
    double auc_sum = 0, tp_sum = 0;
    for (int c = 0; c < k; ++c) {
      std::vector<float> proba(rows), response(rows);
      for (size_t i = 0; i < rows; ++i) {
        proba[i] = preds[i * k + c];
        response[i] = labels[i] == static_cast<float>(c) ? 1.0f : 0.0f;
      }
      auto [fp, tp, auc] =
          roc_ ? BinaryRocAuc(proba, response, Weights{&weights}, nthread_, &scratch_)
               : BinaryPrAuc(proba, response, Weights{&weights}, nthread_, &scratch_);
      const double area = fp * tp;
      if (area == 0) return kNaN;
      auc_sum += auc / area * tp;
      tp_sum += tp;
    }
    return tp_sum == 0 || std::isnan(auc_sum) ? kNaN : auc_sum / tp_sum;
  }

  // Mean over valid groups (exact across workers: groups never span workers).
  double RankingAuc(const std::vector<float>& preds, const DataSet& data,
                    rabit::Communicator* comm) const {
    std::vector<uint32_t> gptr = data.group_ptr;
    if (gptr.empty()) gptr = query_groups::GroupPtrOf(data);  // a worker without groups
    const int64_t groups = static_cast<int64_t>(gptr.size() - 1);
    if (!roc_) {
      for (float y : data.label) {
        if (y < 0.0f || y > 1.0f)
          RB_FAIL(data.name << ": aucpr with query groups needs labels in [0, 1]");
      }
    }
    std::vector<double> aucs(groups, kNaN);
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthread_)
    for (int64_t g = 0; g < groups; ++g) {
      aucs[g] = GroupAuc(preds, data, gptr, g);
    }
    // Every group's AUC, in the order of the whole data, summed as one process sums them (a sum
    // of the workers' sums would round differently).
    double sum = 0.0, valid = 0.0;
    for (double a : metric_detail::AllgatherValues(comm, aucs)) {
      if (std::isnan(a)) continue;
      sum += a;
      valid += 1;
    }
    return valid <= 0 ? kNaN : sum / valid;
  }

  // NaN for an invalid group (ROC: fewer than 3 items; PR: no positives or no negatives).
  double GroupAuc(const std::vector<float>& preds, const DataSet& data,
                  const std::vector<uint32_t>& gptr, int64_t g) const {
    const size_t begin = gptr[g], n = gptr[g + 1] - gptr[g];
    const float w = query_groups::GroupWeight(data, gptr, g);
    if (roc_) {
      if (n < 3) return kNaN;
      return GroupRankingRoc(&preds[begin], &data.label[begin], n, w);
    }
    std::vector<float> p(preds.begin() + begin, preds.begin() + begin + n);
    std::vector<float> y(data.label.begin() + begin, data.label.begin() + begin + n);
    SortScratch scratch;  // inside the groups' loop: one thread, a buffer of its own
    return std::get<2>(BinaryPrAuc(p, y, Weights{nullptr, w}, 1, &scratch));
  }

  bool roc_;
  int nthread_;
  mutable SortScratch scratch_;  // Eval's buffers (Eval is not called on several threads at once)
  mutable std::set<std::string> warned_;  // eval sets whose NaN has been explained
};

}  // namespace

std::unique_ptr<Metric> MakeAucMetric(const std::string& prefix, int nthread) {
  if (prefix == "auc") return std::make_unique<AucMetric>(true, nthread);
  if (prefix == "aucpr") return std::make_unique<AucMetric>(false, nthread);
  return nullptr;
}

}  // namespace ringboost
