// What task=pred predicts with, from the model and the user's keys, as XGBoost 1.7's CLI: an
// objective= or base_score= given (in the config or on the command line) replaces the model's for
// this prediction (the model file is not changed), and iteration_begin / iteration_end (or
// ntree_limit) choose the rounds.
#pragma once

#include <memory>

#include "common/params.h"
#include "model/model.h"
#include "objective/objective.h"

namespace ringboost {

// The objective whose transform the predictions take: objective= where given, else the model's.
// Where objective= or base_score= is given and differs from the model's, *model's initial margin
// becomes the objective's ProbToMargin(base_score) (the model's base_score unless given), and a
// warning names objective=. An objective that does not fit the model (another number of outputs
// per row, or a model that starts each output from its own base_score without base_score=
// given) is not taken: the model's is, with a warning saying why (a config file shared with
// other models often names one).
std::unique_ptr<Objective> PredictionObjective(const Params& params, Model* model);

// The rounds task=pred predicts with: [begin, end) of the model's.
struct RoundRange {
  int begin = 0;
  int end = 0;
};

// iteration_begin and iteration_end (0: the model's last), as XGBoost's CLI; ntree_limit=N is
// iteration_end=N. Throws Error naming the key and its allowed range when the end is past the
// model's rounds or the begin past the end, and when ntree_limit and iteration_end disagree.
RoundRange PredictionRounds(const Params& params, const Model& model);

// The model with the trees of `range`'s rounds only, best_iteration moved with them (-1 when
// outside): predicting with all its rounds is predicting with those rounds of `model`, each row
// starting from the same base margin.
Model SliceRounds(Model model, RoundRange range);

}  // namespace ringboost
