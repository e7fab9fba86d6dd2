// Outputs that would overwrite inputs: a task's output path naming its own data, eval set,
// model_in, fmap or config file (or another of its outputs) is refused before any work, rather
// than the input being replaced by a model or predictions.
#pragma once

#include <string>
#include <vector>

#include "common/params.h"

namespace ringboost {

// Whether paths a and b name the same file: one existing regular file (through links and
// relative paths), or, where b does not exist yet, the same place.
bool SameFile(const std::string& a, const std::string& b);

// OutputPathsProblem (common/output_path.h), then the first output of the task that would
// overwrite an input or another output, naming both keys; "" when there is none. Training may
// write model_out over model_in (a continued model replaces its start).
std::string TaskOutputsProblem(const Params& params);

// The first (key, path) of `outputs` that names one of `inputs`' paths, as "K=P: is also K2 ...";
// "" when none does. Standard output ("", "-" and "stdout") never clashes.
std::string OutputClash(const std::vector<std::pair<std::string, std::string>>& outputs,
                        const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace ringboost
