// Internal to the XGBoost format files: the JSON value type they share and the two halves of the
// mapping between a Model and XGBoost's model document.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/model.h"

namespace ringboost::xgb {

// Keys keep insertion order (XGBoost writes them sorted; the builder inserts them sorted) and
// numbers are floats, so that every float of a model round-trips exactly.
using Json = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, int64_t,
                                  uint64_t, float>;

// The version written into exported documents: the release whose document layout is mirrored.
constexpr int kExportVersion[3] = {3, 4, 1};

// XGBoost's model document of `model` (learner, gradient_booster, trees; doc/model.schema).
Json ToDocument(const Model& model);

// The model in a parsed XGBoost document (3.x or 1.x JSON, or UBJSON read into JSON). Throws
// Error "<source>: <what>" for a malformed document and for what ringboost cannot represent.
Model FromDocument(const Json& root, const std::string& source);

// The document as Universal Binary JSON, laid out as XGBoost writes it: big-endian numbers,
// int64 ('L') lengths and counts, the tree arrays as typed arrays ($d float32, $l int32,
// $L int64, $U uint8), objects without counts.
std::string WriteUbj(const Json& root);

}  // namespace ringboost::xgb
