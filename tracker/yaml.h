// A small block-style YAML emitter for the kubernetes launcher's manifest (kubernetes_launcher.cc):
// maps with their keys in order, lists, and scalars rendered once, strings always double-quoted.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/utf8.h"

namespace ringboost::submit {

// A manifest's strings must be UTF-8 (IsUtf8, common/utf8.h): callers check the user's values
// with it first.
// A YAML double-quoted scalar (JSON string syntax, which YAML accepts) of UTF-8 `text`: '"' and
// '\' escaped, and as \uXXXX every code point a YAML reader would not take as it stands or
// could read as a line break: C0 and C1 controls and DEL, U+2028 and U+2029, the byte order mark
// U+FEFF, and the non-characters U+FFFE and U+FFFF. Other code points stay as they are.
std::string Quoted(const std::string& text);

// A YAML node: a scalar (already rendered), a map with its keys in order, or a list. Keys are
// the caller's literals, plain YAML scalars; string values are always Quoted().
class Yaml {
 public:
  static Yaml Str(const std::string& text) { return Yaml(Quoted(text)); }
  // A fixed word of this file that needs no quotes (a name, an enum value, a path).
  static Yaml Plain(const char* word) { return Yaml(std::string(word)); }
  static Yaml Int(long long value) { return Yaml(std::to_string(value)); }
  static Yaml Map() { return Yaml(kMap); }
  static Yaml List() { return Yaml(kList); }
  static Yaml StrList(const std::vector<std::string>& items) {
    Yaml list = List();
    for (const std::string& item : items) list.Push(Str(item));
    return list;
  }
  Yaml& Add(const std::string& key, Yaml value) {
    RB_CHECK(kind_ == kMap);
    map_.emplace_back(key, std::move(value));
    return *this;
  }
  Yaml& Push(Yaml value) {
    RB_CHECK(kind_ == kList);
    list_.push_back(std::move(value));
    return *this;
  }
  // The node as block YAML, its lines at `indent` spaces (a map's entries, a list's dashes).
  std::string Render(int indent) const;

 private:
  enum Kind { kScalar, kMap, kList };
  explicit Yaml(Kind kind) : kind_(kind) {}
  explicit Yaml(std::string scalar) : kind_(kScalar), scalar_(std::move(scalar)) {}
  bool Empty() const { return kind_ != kScalar && map_.empty() && list_.empty(); }
  std::string Inline() const { return kind_ == kScalar ? scalar_ : kind_ == kMap ? "{}" : "[]"; }

  Kind kind_;
  std::string scalar_;
  std::vector<std::pair<std::string, Yaml>> map_;
  std::vector<Yaml> list_;
};

}  // namespace ringboost::submit
