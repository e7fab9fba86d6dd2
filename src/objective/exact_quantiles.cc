#include "objective/exact_quantiles.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/error.h"

namespace ringboost {
namespace {

// Weights in units of 2^-24: a float weight of 1 is 2^24, so 2^40 rows of weight 1 fit.
constexpr double kWeightScale = 0x1p24;

// This worker's values: keys sorted, with the (fixed-point) weight at or below each (a row
// without a weight weighs 1).
struct Share {
  std::vector<uint32_t> keys;
  std::vector<uint64_t> cumulative;  // cumulative[j] = weight of keys[0..j]
};

// An order statistic to find: the smallest key whose measure at or below it reaches `need`.
struct Target {
  double need;
  uint64_t lo = 0, hi = 0xFFFFFFFFu;
};

Share MakeShare(const std::vector<float>& values, const std::vector<float>& weights) {
  std::vector<std::pair<uint32_t, uint64_t>> rows(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float weight = weights.empty() ? 1.0f : weights[i];
    const uint64_t w = static_cast<uint64_t>(std::llround(weight * kWeightScale));
    rows[i] = {OrderedKey(values[i]), w};
  }
  std::sort(rows.begin(), rows.end());
  Share share;
  uint64_t sum = 0;
  for (const auto& [key, w] : rows) {
    sum += w;
    share.keys.push_back(key);
    share.cumulative.push_back(sum);
  }
  return share;
}

// The measure (weight, or count) of this worker's keys at or below `key`.
uint64_t AtOrBelow(const Share& s, uint64_t key, bool weighted) {
  const auto end = std::upper_bound(s.keys.begin(), s.keys.end(), key,
                                    [](uint64_t k, uint32_t x) { return k < x; });
  const std::size_t n = end - s.keys.begin();
  if (!weighted) return n;
  return n == 0 ? 0 : s.cumulative[n - 1];
}

// Bisects every target at once: 32 rounds, one allreduce each.
void Bisect(const Share& share, bool weighted, std::vector<Target>* targets,
            rabit::Communicator* comm) {
  std::vector<uint64_t> measure(targets->size());
  for (int round = 0; round < 32; ++round) {
    for (std::size_t t = 0; t < targets->size(); ++t) {
      const Target& g = (*targets)[t];
      measure[t] = AtOrBelow(share, g.lo + (g.hi - g.lo) / 2, weighted);
    }
    comm->Allreduce(Span<uint64_t>(measure.data(), measure.size()), rabit::Op::kSum);
    for (std::size_t t = 0; t < targets->size(); ++t) {
      Target& g = (*targets)[t];
      const uint64_t mid = g.lo + (g.hi - g.lo) / 2;
      if (static_cast<double>(measure[t]) >= g.need) {
        g.hi = mid;
      } else {
        g.lo = mid + 1;
      }
    }
  }
}

}  // namespace

uint32_t OrderedKey(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof(b));
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

float FromOrderedKey(uint32_t key) {
  const uint32_t b = (key & 0x80000000u) ? (key & 0x7FFFFFFFu) : ~key;
  float v;
  std::memcpy(&v, &b, sizeof(v));
  return v;
}

std::vector<float> ExactQuantiles(const std::vector<float>& values,
                                  const std::vector<float>& weights,
                                  const std::vector<double>& alphas, rabit::Communicator* comm) {
  RB_CHECK(weights.empty() || weights.size() == values.size());
  const Share share = MakeShare(values, weights);
  // The row count, the total weight and the workers with weights, over every worker: the data is
  // weighted when any worker has weights (a worker without rows has none).
  uint64_t totals[3] = {share.keys.size(), share.cumulative.empty() ? 0 : share.cumulative.back(),
                        weights.empty() ? 0u : 1u};
  comm->Allreduce(Span<uint64_t>(totals, 3), rabit::Op::kSum);
  const double count = static_cast<double>(totals[0]);
  const bool weighted = totals[2] > 0;
  const int k_alphas = static_cast<int>(alphas.size());
  std::vector<float> out(k_alphas, std::numeric_limits<float>::quiet_NaN());
  if (count == 0) return out;
  // Unweighted: per alpha the ranks k and k + 1 (0-based) and the d of v[k] + d (v[k+1] - v[k]);
  // weighted: one target per alpha.
  std::vector<Target> targets;
  std::vector<double> mix(k_alphas, 0.0);
  for (int a = 0; a < k_alphas; ++a) {
    const double alpha = alphas[a];
    if (weighted) {
      targets.push_back({alpha * static_cast<double>(totals[1])});
      continue;
    }
    double k = 0, d = 0;
    if (alpha <= 1 / (count + 1)) {
      k = 0;
    } else if (alpha >= count / (count + 1)) {
      k = count - 1;
    } else {
      const double x = alpha * (count + 1);
      k = std::floor(x) - 1;
      d = (x - 1) - k;
    }
    mix[a] = d;
    targets.push_back({k + 1});
    targets.push_back({std::min(k + 2, count)});
  }
  Bisect(share, weighted, &targets, comm);
  for (int a = 0; a < k_alphas; ++a) {
    if (weighted) {
      out[a] = FromOrderedKey(static_cast<uint32_t>(targets[a].lo));
      continue;
    }
    const float v0 = FromOrderedKey(static_cast<uint32_t>(targets[2 * a].lo));
    const float v1 = FromOrderedKey(static_cast<uint32_t>(targets[2 * a + 1].lo));
    out[a] = static_cast<float>(v0 + mix[a] * (v1 - v0));
  }
  return out;
}

}  // namespace ringboost
