// The one parameter table (STYLE.md point 8), internal to src/common: each row names a key,
// its aliases, where it lives in Params (which also fixes its type), its default, its bounds or
// allowed values and one line of doc. config.cc parses and validates through it and generates
// `ringboost help` and docs/parameters.md from it, so nothing about a key is written twice.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/params.h"

namespace ringboost {

using EvalList = std::vector<std::pair<std::string, std::string>>;

// Where a value lives in Params. std::monostate marks a key that is accepted and ignored
// (XGBoost CLI keys that mean nothing here); the other alternatives fix the value's type.
using ParamField = std::variant<std::monostate, int Params::*, uint64_t Params::*, double Params::*,
                                bool Params::*, std::string Params::*,
                                std::vector<std::string> Params::*, EvalList Params::*>;

// A value accepted as another one: `from` is stored as `to`; `warning` (if any) is shown.
struct ValueAlias {
  std::string from;
  std::string to;
  std::string warning;
};

// Extra check of a string value, run before the allowed-value check. Returns true to accept
// the value outright (e.g. `cuda:3`), false with *error set to reject it with that reason,
// false with *error empty to go on with the ordinary checks.
using ValueHook = bool (*)(const std::string& value, std::string* error);

struct ParamSpec {
  const char* section = "";
  const char* name = "";
  std::vector<std::string> aliases;
  ParamField field;
  std::string default_text;  // as parsed and as documented; "" for empty strings and lists
  double lo = -std::numeric_limits<double>::infinity();  // numeric bounds; infinite =
  double hi = std::numeric_limits<double>::infinity();   // unbounded on that side
  bool lo_open = false;                                  // (lo, ... instead of [lo, ...
  std::vector<std::string> allowed;  // string values allowed (documented); empty = any
  std::vector<ValueAlias> value_aliases;
  ValueHook hook = nullptr;
  std::string doc;

  bool ignored() const { return std::holds_alternative<std::monostate>(field); }
  bool repeatable() const {
    return std::holds_alternative<std::vector<std::string> Params::*>(field) ||
           std::holds_alternative<EvalList Params::*>(field);
  }

  // Builders, so that the table reads as one line of facts per key.
  ParamSpec& Alias(std::string alias) {
    aliases.push_back(std::move(alias));
    return *this;
  }
  ParamSpec& Min(double v, bool open = false) {
    lo = v;
    lo_open = open;
    return *this;
  }
  ParamSpec& Max(double v) {
    hi = v;
    return *this;
  }
  ParamSpec& OneOf(std::vector<std::string> values) {
    allowed = std::move(values);
    return *this;
  }
  ParamSpec& Accept(std::string from, std::string to, std::string warning) {
    value_aliases.push_back({std::move(from), std::move(to), std::move(warning)});
    return *this;
  }
  ParamSpec& Check(ValueHook h) {
    hook = h;
    return *this;
  }
  ParamSpec& Doc(std::string text) {
    doc = std::move(text);
    return *this;
  }
};

// Every key, in documentation order, grouped by `section`.
const std::vector<ParamSpec>& ParamTable();

// The row of `key` (a name or an alias), or nullptr. `eval[NAME]` keys are not found here:
// the parser recognises that form itself and uses EvalSpec().
const ParamSpec* FindParam(const std::string& key);
const ParamSpec& EvalSpec();

// Parses `value` as `spec`'s type, checks it, and stores it in *params (appending for
// repeatable keys). On success returns "" and may add to *warnings; on failure returns the
// reason, to follow "<where>: key=value: " (e.g. "expected an integer in [0, inf)").
std::string ApplyValue(const ParamSpec& spec, const std::string& value, Params* params,
                       std::vector<std::string>* warnings);

// "integer", "float", "boolean", "string", "string, repeatable", "ignored".
std::string TypeName(const ParamSpec& spec);
// The bounds or allowed values as text ("[0, inf)", "(0, 1]", "gbtree"); "" if none.
std::string ValuesText(const ParamSpec& spec);

// The value of `spec`'s field in `params` as text that reads back as the same value (doubles
// in the shortest form that reads back the same; repeatable keys joined by ", "); "" for ignored
// keys.
std::string ValueText(const ParamSpec& spec, const Params& params);

// The known key or alias nearest to `key` by edit distance, or "" if none is close.
std::string ClosestKey(const std::string& key);
// Levenshtein distance of a and b, for "did you mean".
size_t EditDistance(const std::string& a, const std::string& b);

}  // namespace ringboost
