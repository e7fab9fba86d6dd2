// Shared by the objective tests: an objective by name, and its gradients of a few rows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/data.h"
#include "objective/objective.h"

namespace ringboost::test {

inline std::unique_ptr<Objective> Make(const std::string& name, Params p = Params()) {
  p.objective = name;
  return Objective::Create(p);
}

inline std::vector<GradPair> Grad(const Objective& obj, const DataSet& d, std::vector<float> preds,
                                  int iter = 0) {
  std::vector<GradPair> out;
  obj.GetGradient(d, preds, iter, &out);
  return out;
}

}  // namespace ringboost::test
