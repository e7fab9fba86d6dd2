// The one dispatch point between model formats: detection by content, reading and writing.
#include "model/xgboost_format.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "model/xgboost_doc.h"

namespace ringboost {

ModelFormat ModelFormatFromName(const std::string& name) {
  if (name == "ringboost") return ModelFormat::kRingboost;
  if (name == "xgboost-json") return ModelFormat::kXGBoostJson;
  if (name == "xgboost-ubj") return ModelFormat::kXGBoostUbj;
  RB_FAIL("model format '" << name << "' is unknown; use ringboost (the default), xgboost-json "
                           << "or xgboost-ubj");
}

namespace {

// Characters that may follow UBJSON's '{': a key length's integer marker, or an optimised
// container's '$' / '#'. JSON text has whitespace, '"' or '}' there.
bool IsUbjAfterBrace(char c) { return std::strchr("iUIlL$#", c) != nullptr && c != '\0'; }

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

}  // namespace

ModelFormat DetectModelFormat(const std::string& bytes) {
  if (bytes.size() >= 2 && bytes[0] == '{' && IsUbjAfterBrace(bytes[1])) {
    return ModelFormat::kXGBoostUbj;
  }
  std::size_t i = 0;
  while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  if (i < bytes.size() && bytes[i] == '[') return ModelFormat::kXGBoostJson;  // not a model
  if (i < bytes.size() && bytes[i] == '{') {
    // ringboost always writes its format key first.
    return bytes.compare(i, 10, "{\"format\":") == 0 ? ModelFormat::kRingboost
                                                     : ModelFormat::kXGBoostJson;
  }
  return ModelFormat::kXGBoostBinary;
}

Model ReadModelAnyFormat(const std::string& bytes, const std::string& source) {
  if (bytes.empty()) RB_FAIL(source << ": the file is empty (a truncated file, or not a model?)");
  switch (DetectModelFormat(bytes)) {
    case ModelFormat::kRingboost:
      return Model::FromJson(bytes, source);
    case ModelFormat::kXGBoostJson:
      return FromXGBoostJsonText(bytes, source);
    case ModelFormat::kXGBoostUbj:
      return FromXGBoostUbj(bytes, source);
    case ModelFormat::kXGBoostBinary:
      break;
  }
  if (StartsWith(bytes, "bs64")) {
    RB_FAIL(source << ": a base64-encoded XGBoost model; decode it first (base64 -d)");
  }
  // A 1.x binary model's first 136 bytes (after "binf") are its learner parameters, which
  // always hold control bytes (zeros of base_score's float, of the feature count, of the
  // reserved words); where they are all text, the file is data, a config or a dump given as a
  // model.
  const std::size_t head = StartsWith(bytes, "binf") ? 4 : 0;
  const std::size_t span = std::min<std::size_t>(bytes.size() - head, 136);
  const auto is_text = [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t' || c == '\r';
  };
  if (span > 0 && std::all_of(bytes.begin() + head, bytes.begin() + head + span, is_text)) {
    std::string first = bytes.substr(0, std::min<std::size_t>(bytes.find('\n'), 40));
    for (char& c : first) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    }
    RB_FAIL(source << ": not a model: it holds text (it starts with \"" << first
                   << "\"); a model is ringboost's JSON, XGBoost's JSON or UBJSON, or XGBoost "
                      "1.x's binary .model");
  }
  return FromXGBoostBinary(bytes, source);
}

std::string ToXGBoostJson(const Model& model) {
  try {
    return xgb::ToDocument(model).dump() + "\n";
  } catch (const xgb::Json::exception& e) {  // a string that is not UTF-8
    RB_FAIL("cannot write the model as JSON: " << e.what() << "; feature names must be UTF-8");
  }
}

std::string ToXGBoostUbj(const Model& model) { return xgb::WriteUbj(xgb::ToDocument(model)); }

Model FromXGBoostJsonText(const std::string& text, const std::string& source) {
  if (xgb::JsonTextDepth(text) > xgb::kMaxModelDepth) {
    RB_FAIL(source << ": not a model (JSON nested more than " << xgb::kMaxModelDepth
                   << " levels deep; a model nests at most 7)");
  }
  xgb::Json root;
  try {
    root = xgb::Json::parse(xgb::NonFiniteLiteralsToNull(text));
  } catch (const xgb::Json::exception& e) {
    RB_FAIL(source << ": not valid JSON (a truncated file, or not a model?): " << e.what());
  }
  if (root.is_object() && root.contains("format")) return Model::FromJson(text, source);
  return xgb::FromDocument(root, source);
}

Model FromXGBoostUbj(const std::string& bytes, const std::string& source) {
  xgb::CheckUbjLimits(bytes, source);
  xgb::Json root;
  try {
    root = xgb::Json::from_ubjson(bytes);
  } catch (const xgb::Json::exception& e) {
    RB_FAIL(source << ": not a valid UBJSON model (a truncated file?): " << e.what());
  }
  return xgb::FromDocument(root, source);
}

std::string WriteModelAs(const Model& model, ModelFormat format) {
  switch (format) {
    case ModelFormat::kRingboost:
      return model.ToJson();
    case ModelFormat::kXGBoostJson:
      return ToXGBoostJson(model);
    case ModelFormat::kXGBoostUbj:
      return ToXGBoostUbj(model);
    case ModelFormat::kXGBoostBinary:
      break;
  }
  RB_FAIL("XGBoost's 1.x binary model format is read only; write xgboost-json or xgboost-ubj");
}

void SaveModelAs(const Model& model, const std::string& path, ModelFormat format) {
  std::string bytes;
  try {
    bytes = WriteModelAs(model, format);
  } catch (const Error& e) {
    if (format == ModelFormat::kRingboost) throw;
    const std::string rescue = path + ".ringboost.model";
    model.Save(rescue);
    RB_FAIL(path << ": " << e.what() << "; the model is written in ringboost's format to '"
                 << rescue << "' instead");
  }
  WriteFileAtomic(path, bytes);
}

}  // namespace ringboost
