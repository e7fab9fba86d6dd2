#include "cli/predict_setup.h"

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

}  // namespace ringboost
