// The typed parsing of one value of the parameter table (params_table.h) and the text of its
// type, bounds and value: what config.cc applies and `ringboost help` prints.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common/params_table.h"

namespace ringboost {

namespace {

std::string FormatBound(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os << v;
  return os.str();
}

bool IsNumeric(const ParamSpec& spec) {
  return std::holds_alternative<int Params::*>(spec.field) ||
         std::holds_alternative<uint64_t Params::*>(spec.field) ||
         std::holds_alternative<double Params::*>(spec.field);
}

bool HasBounds(const ParamSpec& spec) { return !std::isinf(spec.lo) || !std::isinf(spec.hi); }

bool InBounds(const ParamSpec& spec, double v) {
  bool above_lo = spec.lo_open ? v > spec.lo : v >= spec.lo;
  return above_lo && v <= spec.hi;
}

// The largest magnitude an integer key holds: an int's, or what strtoll reads for a uint64_t.
long long IntegerLimit(const ParamSpec& spec) {
  return std::holds_alternative<int Params::*>(spec.field) ? 2147483647LL : LLONG_MAX;
}

// What a value of `spec` must look like, for error messages: "a number in [0, inf)", "an integer
// in [0, 2147483647]". An integer's range is bounded by its type where the table gives no bound:
// 3000000000 is out of an int, not of [0, inf).
std::string Expected(const ParamSpec& spec) {
  if (std::holds_alternative<double Params::*>(spec.field)) {
    return std::string("expected a number") + (HasBounds(spec) ? " in " + ValuesText(spec) : "");
  }
  const long long limit = IntegerLimit(spec);
  long long lo = -limit, hi = limit;
  if (!std::isinf(spec.lo)) {
    lo = static_cast<long long>(spec.lo_open ? std::floor(spec.lo) + 1 : std::ceil(spec.lo));
  }
  if (spec.hi < static_cast<double>(limit)) hi = static_cast<long long>(std::floor(spec.hi));
  return "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

bool ParseInteger(const std::string& text, long long* out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  errno = 0;
  char* end = nullptr;
  *out = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && end == text.c_str() + text.size();  // an embedded NUL stops strtoll
}

bool ParseNumber(const std::string& text, double* out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  errno = 0;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return errno == 0 && end == text.c_str() + text.size() && std::isfinite(*out);
}

bool ParseBool(const std::string& text, bool* out) {
  std::string v = text;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v != "1" && v != "true" && v != "0" && v != "false") return false;
  *out = v == "1" || v == "true";
  return true;
}

// String values: value aliases, the hook, then the allowed list.
std::string CheckString(const ParamSpec& spec, std::string* value,
                        std::vector<std::string>* warnings) {
  for (const ValueAlias& alias : spec.value_aliases) {
    if (*value == alias.from) {
      if (!alias.warning.empty()) warnings->push_back(alias.warning);
      *value = alias.to;
      return "";
    }
  }
  if (spec.hook != nullptr) {
    std::string error;
    if (spec.hook(*value, &error)) return "";
    if (!error.empty()) return error;
  }
  if (spec.allowed.empty() ||
      std::find(spec.allowed.begin(), spec.allowed.end(), *value) != spec.allowed.end()) {
    return "";
  }
  std::string list;
  for (const std::string& v : spec.allowed) list += (list.empty() ? "" : ", ") + v;
  for (const ValueAlias& alias : spec.value_aliases) list += ", " + alias.from;
  return "allowed values are " + list;
}

}  // namespace

std::string ApplyValue(const ParamSpec& spec, const std::string& value, Params* params,
                       std::vector<std::string>* warnings) {
  const ParamField& f = spec.field;
  if (IsNumeric(spec)) {
    double number = 0;
    long long integer = 0;
    bool is_double = std::holds_alternative<double Params::*>(f);
    bool ok = is_double ? ParseNumber(value, &number) : ParseInteger(value, &integer);
    if (!is_double) number = static_cast<double>(integer);
    if (!ok || !InBounds(spec, number)) return Expected(spec);
    if (auto* m = std::get_if<double Params::*>(&f)) params->*(*m) = number;
    if (auto* m = std::get_if<int Params::*>(&f)) {
      if (integer < -IntegerLimit(spec) || integer > IntegerLimit(spec)) return Expected(spec);
      params->*(*m) = static_cast<int>(integer);
    }
    if (auto* m = std::get_if<uint64_t Params::*>(&f))
      params->*(*m) = static_cast<uint64_t>(integer);
    return "";
  }
  if (auto* m = std::get_if<bool Params::*>(&f)) {
    return ParseBool(value, &(params->*(*m))) ? "" : "expected a boolean (0, 1, true, false)";
  }
  std::string text = value;
  std::string error = CheckString(spec, &text, warnings);
  if (!error.empty()) return error;
  if (auto* m = std::get_if<std::string Params::*>(&f)) params->*(*m) = text;
  if (auto* m = std::get_if<std::vector<std::string> Params::*>(&f)) {
    (params->*(*m)).push_back(text);
  }
  return "";
}

std::string TypeName(const ParamSpec& spec) {
  const ParamField& f = spec.field;
  if (spec.ignored()) return "ignored";
  if (std::holds_alternative<double Params::*>(f)) return "float";
  if (IsNumeric(spec)) return "integer";
  if (std::holds_alternative<bool Params::*>(f)) return "boolean";
  return spec.repeatable() ? "string, repeatable" : "string";
}

std::string ValuesText(const ParamSpec& spec) {
  if (IsNumeric(spec)) {
    if (!HasBounds(spec)) return "";
    return std::string(spec.lo_open ? "(" : "[") + FormatBound(spec.lo) + ", " +
           FormatBound(spec.hi) + (std::isinf(spec.hi) ? ")" : "]");
  }
  std::string list;
  for (const std::string& v : spec.allowed) list += (list.empty() ? "" : ", ") + v;
  return list;
}

std::string ValueText(const ParamSpec& spec, const Params& params) {
  const ParamField& f = spec.field;
  if (auto* m = std::get_if<double Params::*>(&f)) {
    char buf[64];
    const auto end = std::to_chars(buf, buf + sizeof(buf), params.*(*m)).ptr;
    return std::string(buf, end);
  }
  if (auto* m = std::get_if<int Params::*>(&f)) return std::to_string(params.*(*m));
  if (auto* m = std::get_if<uint64_t Params::*>(&f)) return std::to_string(params.*(*m));
  if (auto* m = std::get_if<bool Params::*>(&f)) return params.*(*m) ? "1" : "0";
  if (auto* m = std::get_if<std::string Params::*>(&f)) return params.*(*m);
  std::string list;
  if (auto* m = std::get_if<std::vector<std::string> Params::*>(&f)) {
    for (const std::string& v : params.*(*m)) list += (list.empty() ? "" : ", ") + v;
  }
  if (auto* m = std::get_if<EvalList Params::*>(&f)) {
    for (const auto& [name, uri] : params.*(*m)) {
      list += (list.empty() ? "" : ", ") + name + "=" + uri;
    }
  }
  return list;
}

}  // namespace ringboost
