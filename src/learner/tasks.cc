// Temporary: replaced by the training loop in this same change series.
#include "learner/tasks.h"

#include "common/error.h"

namespace ringboost {
int RunTrain(const Params&) { RB_FAIL("task=train is not wired yet"); }
int RunPredict(const Params&) { RB_FAIL("task=pred is not wired yet"); }
int RunDump(const Params&) { RB_FAIL("task=dump is not wired yet"); }
}  // namespace ringboost
