#include "learner/prediction_output.h"

#include <cstdio>

#include "common/error.h"

namespace ringboost {

void CheckFeatureCount(const std::string& test_uri, uint64_t data_columns,
                       const std::string& model_path, uint32_t model_features) {
  if (data_columns <= model_features) return;
  RB_FAIL("test:data=" << test_uri << " has " << data_columns << " features (ids up to "
                       << data_columns - 1 << "), but model_in=" << model_path << " was trained on "
                       << model_features
                       << ": its trees would ignore the others. Predict data with the "
                          "model's features (ids below "
                       << model_features
                       << "; fewer is fine, absent ones are missing), or train a model on "
                          "data with all of them");
}

void CheckEvalFeatureCount(const std::string& name, const std::string& uri, uint64_t data_columns,
                           uint32_t features) {
  if (data_columns <= features) return;
  RB_FAIL("eval[" << name << "]=" << uri << " has " << data_columns << " features (ids up to "
                  << data_columns - 1 << "), but the model is trained on " << features
                  << " (the training data's, and model_in's if any): its trees would ignore the "
                     "others. Evaluate data with the training data's features (ids below "
                  << features
                  << "; fewer is fine, absent ones are missing), or train on data with all of "
                     "them");
}

std::string PredictionText(const std::vector<float>& preds, int per_row,
                           const std::string& layout) {
  const bool rows = layout == "row" && per_row > 1;
  std::string text;
  text.reserve(preds.size() * 12);
  char buf[32];
  for (std::size_t i = 0; i < preds.size(); ++i) {
    std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(preds[i]));
    text += buf;
    text += rows && (i + 1) % static_cast<std::size_t>(per_row) != 0 ? '\t' : '\n';
  }
  return text;
}

}  // namespace ringboost
