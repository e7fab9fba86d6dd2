#include "tree/constraints.h"

#include <algorithm>
#include <iterator>

#include "common/constraint_text.h"
#include "common/error.h"
#include "common/params.h"
#include "model/model.h"

namespace ringboost {
namespace {

// What a feature reference may name in data of `n` features: "the training data has 3 features
// (ids 0 to 2)", by `names` "without a feature map (fmap) the features are named f0 to f2", or
// that it has none.
std::string Features(uint32_t n, bool names) {
  if (n == 0) return "the training data has no features";
  const std::string last = std::to_string(n - 1);
  if (names) return "without a feature map (fmap) the features are named f0 to f" + last;
  return "the training data has " + std::to_string(n) + " features (ids 0 to " + last + ")";
}

// The feature id `ref` names for data of `num_features` features; fails naming `key`.
uint32_t Resolve(const char* key, const FeatureRef& ref, uint32_t num_features,
                 const FeatureMap* fmap) {
  if (!ref.by_name) {
    if (ref.id >= num_features) {
      RB_FAIL(key << ": feature " << ref.id << " does not exist; "
                  << Features(num_features, false));
    }
    return ref.id;
  }
  if (fmap != nullptr) {
    const auto it = std::find(fmap->names.begin(), fmap->names.end(), ref.name);
    if (it == fmap->names.end()) {
      RB_FAIL(key << ": unknown feature name '" << ref.name
                  << "'; the names are those of the feature map (fmap)");
    }
    const uint32_t id = static_cast<uint32_t>(it - fmap->names.begin());
    if (id >= num_features) {
      RB_FAIL(key << ": feature '" << ref.name << "' is feature " << id
                  << " of the feature map, but the training data has " << num_features
                  << " features");
    }
    return id;
  }
  const std::string& n = ref.name;
  const bool fn = n.size() > 1 && n.size() <= 11 && n[0] == 'f' &&
                  n.find_first_not_of("0123456789", 1) == std::string::npos &&
                  (n.size() == 2 || n[1] != '0');
  if (!fn || std::stoull(n.substr(1)) >= num_features) {
    RB_FAIL(key << ": unknown feature name '" << n << "'; " << Features(num_features, true));
  }
  return static_cast<uint32_t>(std::stoull(n.substr(1)));
}

std::vector<int8_t> ResolveMonotone(const Params& params, uint32_t num_features,
                                    const FeatureMap* fmap) {
  const char* key = "monotone_constraints";
  MonotoneText text;
  const std::string error = ParseMonotoneText(params.monotone_constraints, &text);
  if (!error.empty()) RB_FAIL(key << "=" << params.monotone_constraints << ": " << error);
  if (text.values.size() > num_features) {
    RB_FAIL(key << " has " << text.values.size() << " values, but the training data has "
                << num_features << " features; give one value (-1, 0 or 1) per feature, at most "
                << num_features);
  }
  std::vector<int8_t> out(num_features, 0);
  for (std::size_t i = 0; i < text.values.size(); ++i) out[i] = static_cast<int8_t>(text.values[i]);
  for (const auto& item : text.named) {
    out[Resolve(key, item.first, num_features, fmap)] = static_cast<int8_t>(item.second);
  }
  if (std::all_of(out.begin(), out.end(), [](int8_t c) { return c == 0; })) out.clear();
  return out;
}

std::vector<std::vector<uint32_t>> ResolveInteraction(const Params& params, uint32_t num_features,
                                                      const FeatureMap* fmap) {
  const char* key = "interaction_constraints";
  std::vector<std::vector<FeatureRef>> text;
  const std::string error = ParseInteractionText(params.interaction_constraints, &text);
  if (!error.empty()) RB_FAIL(key << "=" << params.interaction_constraints << ": " << error);
  std::vector<std::vector<uint32_t>> sets;
  for (const auto& refs : text) {
    std::vector<uint32_t> set;
    for (const FeatureRef& ref : refs) set.push_back(Resolve(key, ref, num_features, fmap));
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    sets.push_back(std::move(set));
  }
  // "[]" names no set, yet (as in XGBoost) it constrains: every feature is in no set, so a path
  // splits on one feature only. One empty set says so ("[[]]", the same rule); no set means free.
  const bool blank =
      params.interaction_constraints.find_first_not_of(" \t\r\n\v\f") == std::string::npos;
  if (sets.empty() && !blank) sets.emplace_back();
  return sets;
}

// Whether ascending `inner` is a subset of ascending `outer`.
bool Includes(const std::vector<uint32_t>& outer, const std::vector<uint32_t>& inner) {
  return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
}

}  // namespace

TreeConstraints TreeConstraints::From(const Params& params, uint32_t num_features,
                                      const FeatureMap* fmap) {
  TreeConstraints c;
  c.monotone = ResolveMonotone(params, num_features, fmap);
  c.interaction = ResolveInteraction(params, num_features, fmap);
  return c;
}

TreeConstraints TreeConstraints::Select(const std::vector<uint32_t>& ids) const {
  TreeConstraints c;
  const auto column = [&](uint32_t id) {
    const auto it = std::lower_bound(ids.begin(), ids.end(), id);
    return it != ids.end() && *it == id ? static_cast<int64_t>(it - ids.begin()) : int64_t{-1};
  };
  if (!monotone.empty()) {
    c.monotone.assign(ids.size(), 0);
    for (std::size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] < monotone.size()) c.monotone[k] = monotone[ids[k]];
    }
    if (std::all_of(c.monotone.begin(), c.monotone.end(), [](int8_t v) { return v == 0; })) {
      c.monotone.clear();
    }
  }
  for (const auto& set : interaction) {
    std::vector<uint32_t> mapped;
    for (uint32_t id : set) {
      const int64_t k = column(id);
      if (k >= 0) mapped.push_back(static_cast<uint32_t>(k));
    }
    c.interaction.push_back(std::move(mapped));  // ascending: ids and columns keep their order
  }
  return c;
}

void ChildBounds(WeightBounds parent, int c, float left_weight, float right_weight,
                 WeightBounds* left, WeightBounds* right) {
  *left = *right = parent;
  const float mid = (left_weight + right_weight) / 2.0f;
  if (c > 0) {
    left->upper = mid;
    right->lower = mid;
  } else if (c < 0) {
    left->lower = mid;
    right->upper = mid;
  }
}

void InteractionTracker::Reset() { nodes_.assign(1, NodeSets{}); }

void InteractionTracker::Split(int nid, uint32_t feature, int left, int right) {
  if (sets_ == nullptr || sets_->empty()) return;
  NodeSets child;
  child.all = false;
  child.path = nodes_[nid].path;
  child.path.insert(std::lower_bound(child.path.begin(), child.path.end(), feature), feature);
  child.path.erase(std::unique(child.path.begin(), child.path.end()), child.path.end());
  child.allowed = child.path;
  for (const std::vector<uint32_t>& set : *sets_) {
    if (!Includes(set, child.path)) continue;
    std::vector<uint32_t> merged;
    std::set_union(child.allowed.begin(), child.allowed.end(), set.begin(), set.end(),
                   std::back_inserter(merged));
    child.allowed.swap(merged);
  }
  const std::size_t size = static_cast<std::size_t>(std::max(left, right)) + 1;
  if (nodes_.size() < size) nodes_.resize(size);
  nodes_[left] = child;
  nodes_[right] = std::move(child);
}

void InteractionTracker::Filter(int nid, std::vector<uint32_t>* features) const {
  if (!Restricts(nid)) return;
  const std::vector<uint32_t>& allowed = nodes_[nid].allowed;
  std::vector<uint32_t> kept;
  std::set_intersection(features->begin(), features->end(), allowed.begin(), allowed.end(),
                        std::back_inserter(kept));
  features->swap(kept);
}

}  // namespace ringboost
