#include "tree/column_sampler.h"

#include <algorithm>
#include <numeric>

#include "common/random.h"

namespace ringboost {

ColumnSampler::ColumnSampler(uint32_t num_features, const TreeParams& params, uint64_t tree_key)
    : seed_(params.seed),
      tree_key_(tree_key),
      bylevel_(params.colsample_bylevel),
      bynode_(params.colsample_bynode) {
  auto all = std::make_shared<std::vector<uint32_t>>(num_features);
  std::iota(all->begin(), all->end(), 0u);
  tree_set_ =
      Sample(all, params.colsample_bytree, static_cast<uint64_t>(RandomStream::kColumnTree), 0);
}

ColumnSampler::FeatureSet ColumnSampler::Sample(const FeatureSet& set, double ratio,
                                                uint64_t stream, uint64_t key) const {
  const std::vector<uint32_t>& from = *set;
  if (ratio >= 1.0 || from.empty()) return set;
  std::size_t n = std::max<std::size_t>(1, static_cast<std::size_t>(ratio * from.size()));
  std::vector<std::pair<uint64_t, uint32_t>> draws(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) {
    draws[i] = {CounterHash(seed_, stream, tree_key_ * 1000003ULL + key, from[i]), from[i]};
  }
  std::partial_sort(draws.begin(), draws.begin() + n, draws.end());
  auto out = std::make_shared<std::vector<uint32_t>>(n);
  for (std::size_t i = 0; i < n; ++i) (*out)[i] = draws[i].second;
  std::sort(out->begin(), out->end());
  return out;
}

ColumnSampler::FeatureSet ColumnSampler::ForNode(int nid, int depth) {
  auto it = level_sets_.find(depth);
  if (it == level_sets_.end()) {
    it = level_sets_
             .emplace(depth, Sample(tree_set_, bylevel_,
                                    static_cast<uint64_t>(RandomStream::kColumnLevel), depth))
             .first;
  }
  if (bynode_ >= 1.0) return it->second;
  return Sample(it->second, bynode_, static_cast<uint64_t>(RandomStream::kColumnNode),
                static_cast<uint64_t>(nid));
}

}  // namespace ringboost
