// FeatureMap::Load: XGBoost's fmap file, one feature a line: "<id>\t<name>\t<type>".
// Fields are separated by any whitespace (XGBoost reads them with >>), ids run 0, 1, 2, ... in
// order, blank lines are skipped, and every malformed line is an Error naming file:line.
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/utf8.h"
#include "model/model.h"

namespace ringboost {
namespace {

bool KnownType(const std::string& type) {
  return type == "i" || type == "q" || type == "int" || type == "float" || type == "c";
}

std::vector<std::string> SplitFields(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> fields;
  std::string field;
  while (in >> field) fields.push_back(field);
  return fields;
}

// Parses one non-blank line as feature number `expected_id`.
void ParseLine(const std::string& line, const std::string& where, size_t expected_id,
               FeatureMap* fmap) {
  const std::vector<std::string> fields = SplitFields(line);
  if (fields.size() != 3) {
    RB_FAIL(where << ": expected '<id>\\t<name>\\t<type>', got " << fields.size() << " field"
                  << (fields.size() == 1 ? "" : "s"));
  }
  const std::string& id = fields[0];
  if (id.find_first_not_of("0123456789") != std::string::npos || id.size() > 9) {
    RB_FAIL(where << ": feature id '" << id << "' is not a non-negative integer");
  }
  if (std::stoul(id) != expected_id) {
    RB_FAIL(where << ": feature id " << id << " out of order; ids must be 0, 1, 2, ... (expected "
                  << expected_id << ")");
  }
  if (!KnownType(fields[2])) {
    RB_FAIL(where << ": unknown feature type '" << fields[2]
                  << "'; use i (indicator), q (quantitative), int, float or c "
                     "(categorical)");
  }
  if (!IsUtf8(fields[1])) {  // models and JSON dumps hold the names as JSON strings
    RB_FAIL(where << ": the feature name is not UTF-8 text; save the fmap as UTF-8");
  }
  fmap->names.push_back(fields[1]);
  fmap->types.push_back(fields[2]);
}

}  // namespace

FeatureMap FeatureMap::Load(const std::string& path) {
  const std::string text = ReadWholeFile(path);
  FeatureMap fmap;
  std::istringstream in(text);
  std::string line;
  for (size_t line_no = 1; std::getline(in, line); ++line_no) {
    if (line.find_first_not_of(" \t\r\n\v\f") == std::string::npos) continue;
    ParseLine(line, path + ":" + std::to_string(line_no), fmap.names.size(), &fmap);
  }
  return fmap;
}

FeatureMap FeatureMap::For(const Model& model, const std::string& path) {
  if (!path.empty()) return Load(path);
  FeatureMap fmap;
  fmap.names = model.feature_names;
  fmap.types.assign(fmap.names.size(), "q");
  return fmap;
}

}  // namespace ringboost
