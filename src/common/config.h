// Reading a run's settings: an XGBoost CLI config file (`key = value` lines, `#` comments,
// quoted values, `eval[NAME] = uri`, `test:data = uri`) then `key=value` overrides, through the
// one parameter table (name, aliases, type, default, bounds, doc) in params_table.cc.
#pragma once

#include <string>
#include <vector>

#include "common/params.h"

namespace ringboost {

// Parses the file at `conf_path` (empty = none) and then `overrides` ("key=value" each, later
// wins). Resolves aliases, checks types and bounds. Throws Error:
//   unknown key   -> "<file>:<line>: unknown parameter 'etta'; did you mean 'eta'?"
//   bad value     -> "<file>:<line>: max_depth=-1: must be an integer in [0, 1024]"
Params ParseConfig(const std::string& conf_path, const std::vector<std::string>& overrides);

// `ringboost help`: every parameter with aliases, type, default, bounds and doc.
std::string ParametersHelp();
// docs/parameters.md, generated from the same table.
std::string ParametersMarkdown();

}  // namespace ringboost
