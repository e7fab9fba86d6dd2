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

// The categorical splits of a tree as XGBoost 3.x stores them, four arrays in node order of the
// categorical nodes: categories_nodes (node ids), categories_segments (offsets into
// categories), categories_sizes, and categories (each node's codes, ascending). ringboost's own
// format keeps the same four.
struct CategoryArrays {
  Json nodes = Json::array();
  Json segments = Json::array();
  Json sizes = Json::array();
  Json categories = Json::array();
};
CategoryArrays CategoriesOf(const RegTree& tree);
// Sets the categorical nodes of *tree (its children already read) from the four arrays of `t`,
// when present. Throws Error "<where>: <what>" for arrays that disagree, a node out of range or a
// leaf, and a code outside [0, 2^24).
void ReadCategories(const Json& t, const std::string& where, RegTree* tree);

// The deepest nesting of arrays and objects a model file may have: XGBoost's document nests 7
// (learner, gradient_booster, model, trees, a tree, tree_param), ringboost's 4.
constexpr int kMaxModelDepth = 16;

// Checks UBJSON bytes before a DOM is built from them, by a pass that builds nothing: nlohmann's
// reader recurses once per level, so deeper nesting than kMaxModelDepth is refused, and so are a
// declared count above the file's size and more values than the file has bytes (a typed array
// of null, true or false holds any count in no bytes), which would make the DOM grow without
// bound. Throws Error "<source>: <what>" for those and for bytes that are not UBJSON.
void CheckUbjLimits(const std::string& bytes, const std::string& source);

// The deepest nesting of arrays and objects in JSON `text`, or kMaxModelDepth + 1 once it passes
// that. Scans the text without parsing it.
int JsonTextDepth(const std::string& text);

// `text` with the bare literals NaN, Infinity and -Infinity that XGBoost's JSON writer uses for
// floats that are not finite (and JSON lacks) replaced by null, so that nlohmann can parse it;
// strings are left alone.
std::string NonFiniteLiteralsToNull(const std::string& text);

// `v` for an error message, bounded whatever the file holds: a number, boolean or null as JSON,
// a string quoted and cut after 40 characters, an array or object by its kind and size.
std::string Brief(const Json& v);

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
