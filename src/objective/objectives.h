// The objective families behind Objective::Create. Each returns nullptr for a name it does not
// own.
#pragma once

#include <memory>
#include <string>

#include "common/error.h"
#include "objective/objective.h"

namespace ringboost {

std::unique_ptr<Objective> MakeRegressionObjective(const std::string& name, const Params& params);
std::unique_ptr<Objective> MakeMulticlassObjective(const std::string& name, const Params& params);
std::unique_ptr<Objective> MakeRankObjective(const std::string& name, const Params& params);

}  // namespace ringboost
