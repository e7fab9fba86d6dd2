// The text forms of XGBoost's tree constraints, as a config file writes them:
//   monotone_constraints = (1,0,-1)                 one value a feature, in feature order
//   monotone_constraints = {"age": 1, "f3": -1}     by feature name (fmap names, else fN)
//   interaction_constraints = [[0,1],[2,3,4]]        sets of feature ids or names
// Parsing checks the syntax and the values only; the features the items name are resolved
// against the training data later (tree/constraints.h), when the feature count is known.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ringboost {

// A feature as a constraint names it: an id, or a name (quoted in the text).
struct FeatureRef {
  bool by_name = false;
  uint32_t id = 0;
  std::string name;
};

struct MonotoneText {
  // Either the positional form (values[i] for feature i) or the named form (pairs).
  std::vector<int> values;
  std::vector<std::pair<FeatureRef, int>> named;
  bool Empty() const { return values.empty() && named.empty(); }
};

// Parse `text`; on a mistake return the reason (for "<key>=<value>: reason"), else "".
std::string ParseMonotoneText(const std::string& text, MonotoneText* out);
std::string ParseInteractionText(const std::string& text,
                                 std::vector<std::vector<FeatureRef>>* out);

// Hooks of the parameter table: syntax check only (see ValueHook in params_table.h).
bool CheckMonotoneText(const std::string& value, std::string* error);
bool CheckInteractionText(const std::string& value, std::string* error);

}  // namespace ringboost
