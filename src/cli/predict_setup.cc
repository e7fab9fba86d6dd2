#include "cli/predict_setup.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "common/logging.h"

namespace ringboost {
namespace {

// Why objective=params.objective cannot predict with *model's trees, or "" when it can.
std::string WhyNotFit(const Params& params, const Model& model, bool new_base) {
  Params p = params;
  if (!params.IsSet("num_class")) p.num_class = model.num_class;
  int outputs = 0;
  try {
    outputs = Objective::Create(p)->NumGroups();
  } catch (const Error& e) {
    return e.what();
  }
  if (outputs != model.num_groups) {
    return "it makes " + std::to_string(outputs) + " output(s) per row, the model " +
           std::to_string(model.num_groups);
  }
  if (!model.base_margins.empty() && !new_base) {
    return "the model starts each output from its own base_score (give base_score= too)";
  }
  return "";
}

}  // namespace

std::unique_ptr<Objective> PredictionObjective(const Params& params, Model* model) {
  Params p = params;
  p.objective = model->objective;
  p.num_class = model->num_class;
  // The model's own objective first: a model naming one ringboost lacks is refused either way.
  std::unique_ptr<Objective> objective = Objective::Create(p);
  const bool new_base =
      params.IsSet("base_score") && static_cast<float>(params.base_score) != model->base_score;
  bool new_objective = params.IsSet("objective") && params.objective != model->objective;
  if (new_objective) {
    const std::string why = WhyNotFit(params, *model, new_base);
    if (why.empty()) {
      RB_LOG(kWarning, "objective=" << params.objective << " replaces the model's "
                                    << model->objective
                                    << " for this prediction (as XGBoost); drop objective= to "
                                       "predict as the model was trained");
      p.objective = params.objective;
      if (params.IsSet("num_class")) p.num_class = params.num_class;
      objective = Objective::Create(p);
    } else {
      RB_LOG(kWarning, "objective=" << params.objective << " does not fit model_in="
                                    << params.model_in << " (" << why << "): predicting with "
                                    << "the model's " << model->objective);
      new_objective = false;
    }
  }
  if (!new_objective && !new_base) return objective;
  if (new_base) {
    RB_LOG(kInfo, "base_score=" << params.base_score << " replaces the model's "
                                << model->base_score << " for this prediction");
    model->base_score = static_cast<float>(params.base_score);
  }
  model->base_margin = objective->ProbToMargin(model->base_score);
  model->base_margins.clear();
  return objective;
}

RoundRange PredictionRounds(const Params& params, const Model& model) {
  if (params.ntree_limit > 0 && params.iteration_end > 0 &&
      params.ntree_limit != params.iteration_end) {
    RB_FAIL("ntree_limit=" << params.ntree_limit << " and iteration_end=" << params.iteration_end
                           << " both give the end of the rounds to predict with; give one "
                              "(ntree_limit=N is iteration_end=N)");
  }
  const std::string end_key = params.ntree_limit > 0 ? "ntree_limit" : "iteration_end";
  const int end = std::max(params.ntree_limit, params.iteration_end);
  const std::string in = "model_in=" + params.model_in;
  if (end > model.num_rounds) {
    RB_FAIL(end_key << "=" << end << ": must be in [0, " << model.num_rounds << "]: " << in
                    << " has " << model.num_rounds << " rounds (0 predicts with all of them)");
  }
  const RoundRange range{params.iteration_begin, end == 0 ? model.num_rounds : end};
  if (range.begin > range.end) {
    RB_FAIL(
        "iteration_begin=" << range.begin << ": must be in [0, " << range.end
                           << "], the end of the rounds predicted with ("
                           << (end == 0 ? in + "'s rounds" : end_key + "=" + std::to_string(end))
                           << ")");
  }
  return range;
}

Model SliceRounds(Model model, RoundRange range) {
  const std::size_t groups = model.num_groups;
  const std::size_t first = range.begin * groups, last = range.end * groups;
  RB_CHECK(range.begin >= 0 && range.begin <= range.end && last <= model.trees.size());
  model.trees.erase(model.trees.begin() + last, model.trees.end());
  model.trees.erase(model.trees.begin(), model.trees.begin() + first);
  model.tree_group.erase(model.tree_group.begin() + last, model.tree_group.end());
  model.tree_group.erase(model.tree_group.begin(), model.tree_group.begin() + first);
  model.num_rounds = range.end - range.begin;
  const bool best_inside = model.best_iteration >= range.begin && model.best_iteration < range.end;
  model.best_iteration = best_inside ? model.best_iteration - range.begin : -1;
  return model;
}

}  // namespace ringboost
