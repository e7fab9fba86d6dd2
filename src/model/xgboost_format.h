// Models that leave ringboost and come back: XGBoost's model formats (docs/model-format.md,
// "XGBoost formats").
//
// Out: XGBoost 3.x's JSON model document (doc/model.schema of XGBoost), as text or as Universal
// Binary JSON laid out as XGBoost writes it. In: that document (3.x and 1.x JSON, UBJSON) and
// XGBoost 1.x's binary model (the CLI's `.model` files), detected by content. What ringboost
// cannot predict with (gblinear, dart, random forests, categorical splits, vector leaves, an
// objective ringboost lacks) is refused by name.
#pragma once

#include <string>

#include "model/model.h"

namespace ringboost {

enum class ModelFormat { kRingboost, kXGBoostJson, kXGBoostUbj, kXGBoostBinary };

// The format named by `name` (model_format / --format): ringboost, xgboost-json, xgboost-ubj.
// Throws Error listing the names for any other.
ModelFormat ModelFormatFromName(const std::string& name);

// The format of a model file's bytes, from its content (not its name).
ModelFormat DetectModelFormat(const std::string& bytes);

// Reads a model in any of the formats, detected by content; `source` names it in errors.
Model ReadModelAnyFormat(const std::string& bytes, const std::string& source);

// The model's bytes in `format`. Throws Error for what the format cannot hold (binary is read
// only).
std::string WriteModelAs(const Model& model, ModelFormat format);

// Atomic, as Model::Save. Where an XGBoost format cannot hold the model (a value that is not
// finite), the model is not lost: it is written in ringboost's format to
// `path`.ringboost.model, and the Error names that file.
void SaveModelAs(const Model& model, const std::string& path, ModelFormat format);

// The parts, for tests and tools.
std::string ToXGBoostJson(const Model& model);
std::string ToXGBoostUbj(const Model& model);
Model FromXGBoostJsonText(const std::string& text, const std::string& source);
Model FromXGBoostUbj(const std::string& bytes, const std::string& source);
Model FromXGBoostBinary(const std::string& bytes, const std::string& source);

}  // namespace ringboost
