#include "objective/leaf_quantile.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "common/error.h"

namespace ringboost {
namespace {

// Weights in units of 2^-24: a float weight of 1 is 2^24, so 2^40 rows of weight 1 fit.
constexpr double kWeightScale = 0x1p24;

// One node's rows on this worker: keys sorted, with the (fixed-point) weight at or below each.
struct NodeShare {
  std::vector<uint32_t> keys;
  std::vector<uint64_t> cumulative;  // cumulative[j] = weight of keys[0..j]
};

// An order statistic to find: the smallest key whose measure at or below it reaches `need`.
struct Target {
  int node;
  double need;
  uint64_t lo = 0, hi = 0xFFFFFFFFu;
};

std::vector<NodeShare> Shares(const std::vector<int>& leaf_of_row, int num_nodes,
                              const std::vector<float>& values, const std::vector<float>& weights) {
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> rows(num_nodes);
  for (std::size_t i = 0; i < leaf_of_row.size(); ++i) {
    const int node = leaf_of_row[i];
    if (node < 0) continue;
    RB_CHECK(node < num_nodes);
    const uint64_t w =
        weights.empty() ? 1 : static_cast<uint64_t>(std::llround(weights[i] * kWeightScale));
    rows[node].push_back({OrderedKey(values[i]), w});
  }
  std::vector<NodeShare> shares(num_nodes);
  for (int n = 0; n < num_nodes; ++n) {
    std::sort(rows[n].begin(), rows[n].end());
    uint64_t sum = 0;
    for (const auto& [key, w] : rows[n]) {
      sum += w;
      shares[n].keys.push_back(key);
      shares[n].cumulative.push_back(sum);
    }
  }
  return shares;
}

// The measure (count or weight) of this worker's keys of `s` at or below `key`.
uint64_t AtOrBelow(const NodeShare& s, uint64_t key) {
  const auto end = std::upper_bound(s.keys.begin(), s.keys.end(), key,
                                    [](uint64_t k, uint32_t x) { return k < x; });
  const std::size_t n = end - s.keys.begin();
  return n == 0 ? 0 : s.cumulative[n - 1];
}

// Bisects every target at once: 32 rounds, one allreduce each.
void Bisect(const std::vector<NodeShare>& shares, std::vector<Target>* targets,
            rabit::Communicator* comm) {
  std::vector<uint64_t> measure(targets->size());
  for (int round = 0; round < 32; ++round) {
    for (std::size_t t = 0; t < targets->size(); ++t) {
      const Target& g = (*targets)[t];
      measure[t] = AtOrBelow(shares[g.node], g.lo + (g.hi - g.lo) / 2);
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

std::vector<float> AgreeLeafQuantiles(const std::vector<int>& leaf_of_row, int num_nodes,
                                      const std::vector<float>& values,
                                      const std::vector<float>& weights, double alpha,
                                      rabit::Communicator* comm) {
  RB_CHECK(values.size() == leaf_of_row.size());
  RB_CHECK(weights.empty() || weights.size() == values.size());
  const std::vector<NodeShare> shares = Shares(leaf_of_row, num_nodes, values, weights);
  // Per node: the row count and the total weight over every worker.
  std::vector<uint64_t> totals(2 * num_nodes);
  for (int n = 0; n < num_nodes; ++n) {
    totals[2 * n] = shares[n].keys.size();
    totals[2 * n + 1] = shares[n].cumulative.empty() ? 0 : shares[n].cumulative.back();
  }
  comm->Allreduce(Span<uint64_t>(totals.data(), totals.size()), rabit::Op::kSum);
  std::vector<Target> targets;
  std::vector<double> mix(num_nodes, 0.0);  // unweighted: the d of v[k] + d (v[k+1] - v[k])
  std::vector<int> first(num_nodes, -1);    // the node's first target
  for (int n = 0; n < num_nodes; ++n) {
    const double count = static_cast<double>(totals[2 * n]);
    if (count == 0) continue;
    first[n] = static_cast<int>(targets.size());
    if (!weights.empty()) {
      targets.push_back({n, alpha * static_cast<double>(totals[2 * n + 1])});
      continue;
    }
    double k = 0, d = 0;  // ranks k and k + 1 (0-based), weights 1 - d and d
    if (alpha <= 1 / (count + 1)) {
      k = 0;
    } else if (alpha >= count / (count + 1)) {
      k = count - 1;
    } else {
      const double x = alpha * (count + 1);
      k = std::floor(x) - 1;
      d = (x - 1) - k;
    }
    mix[n] = d;
    targets.push_back({n, k + 1});
    targets.push_back({n, std::min(k + 2, count)});
  }
  Bisect(shares, &targets, comm);
  std::vector<float> out(num_nodes, std::numeric_limits<float>::quiet_NaN());
  for (int n = 0; n < num_nodes; ++n) {
    if (first[n] < 0) continue;
    const float v0 = FromOrderedKey(static_cast<uint32_t>(targets[first[n]].lo));
    if (!weights.empty()) {
      out[n] = v0;
      continue;
    }
    const float v1 = FromOrderedKey(static_cast<uint32_t>(targets[first[n] + 1].lo));
    out[n] = static_cast<float>(v0 + mix[n] * (v1 - v0));
  }
  return out;
}

}  // namespace ringboost
