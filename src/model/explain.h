// Explanations of predictions, as XGBoost's predict(pred_leaf / pred_contribs /
// pred_interactions) gives them (docs/model-format.md, "Explanations").
//
// Contributions are TreeSHAP values (Lundberg, Erion and Lee, "Consistent individualized
// feature attribution for tree ensembles", 2018): per row and output group, one value per
// feature and a last "bias" column holding the trees' expected values plus the group's initial
// margin, so that a row's values sum to its margin. Interactions are the SHAP interaction
// values of the same paper (conditioning each feature on and off); their rows sum to the
// contributions. Arithmetic is in float, in tree order, as XGBoost's CPU predictor does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/params.h"
#include "data/data.h"
#include "model/model.h"

namespace ringboost {

enum class ExplainKind {
  kLeaf,          // per row: the leaf id of each tree (num_trees values)
  kContribs,      // per row: groups x (num_feature + 1)
  kInteractions,  // per row: groups x (num_feature + 1) x (num_feature + 1)
};

// The kind pred_leaf / pred_contribs / pred_interactions ask for: false when none is set.
// Throws Error when more than one is.
bool ExplainKindFromParams(const Params& params, ExplainKind* kind);

// Values per row of `kind` for the first `num_rounds` rounds of `model` (0 = all).
uint64_t ExplainValuesPerRow(const Model& model, ExplainKind kind, int num_rounds);

// The explanation of every row of `data` (row-major, ExplainValuesPerRow values a row) using
// the first `num_rounds` rounds (0 = all). Rows are spread over `nthread` threads (0 = all
// cores); the result does not depend on the thread count. `job_rows` (0: data's rows) is how
// many rows the whole job explains, over every worker: it decides which trees get SHAP tables
// (shap_table.h), whose values differ from the recursive walk's in float rounding, so that every
// worker decides as one process would.
std::vector<float> Explain(const Model& model, const DataSet& data, int num_rounds,
                           ExplainKind kind, int nthread, uint64_t job_rows = 0);

}  // namespace ringboost
