// The three tasks of the CLI, given parsed Params. Each returns the process exit code and throws
// ringboost::Error for a user's mistake (the CLI prints it). Paths in `params` are taken
// relative to the current directory.
#pragma once

#include "common/params.h"

namespace ringboost {

int RunTrain(const Params& params);
int RunPredict(const Params& params);
int RunDump(const Params& params);

}  // namespace ringboost
