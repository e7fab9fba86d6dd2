#include "common/constraint_text.h"

#include <cctype>
#include <set>

namespace ringboost {
namespace {

constexpr const char* kMonotoneForms =
    "expected (v0,v1,...) with each v one of -1, 0, 1 (XGBoost's form), or {\"name\": v, ...} "
    "by feature name";
constexpr const char* kInteractionForm =
    "expected a list of feature sets such as [[0,1],[2,3,4]], each item a feature id or a "
    "quoted feature name";

// A cursor over the text with the few tokens both forms need.
class Scanner {
 public:
  explicit Scanner(const std::string& text) : s_(text) {}

  void SkipSpace() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
  }
  bool Done() {
    SkipSpace();
    return at_ == s_.size();
  }
  char Peek() {
    SkipSpace();
    return at_ < s_.size() ? s_[at_] : '\0';
  }
  bool Take(char c) {
    if (Peek() != c) return false;
    ++at_;
    return true;
  }
  // An optionally signed decimal integer in [lo, hi]; false (with *error) otherwise.
  bool Integer(long long lo, long long hi, long long* out, std::string* error) {
    SkipSpace();
    const std::size_t begin = at_;
    if (at_ < s_.size() && (s_[at_] == '-' || s_[at_] == '+')) ++at_;
    const std::size_t digits = at_;
    while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) ++at_;
    if (at_ == digits || at_ - digits > 10) {
      *error = "'" + Rest(begin) + "' is not an integer";
      return false;
    }
    *out = std::stoll(s_.substr(begin, at_ - begin));
    if (*out < lo || *out > hi) {
      *error = s_.substr(begin, at_ - begin) + " is out of range";
      return false;
    }
    return true;
  }
  // A name in double or single quotes (no escapes).
  bool Quoted(std::string* out, std::string* error) {
    const char quote = Peek();
    if (quote != '"' && quote != '\'') {
      *error = "expected a quoted feature name at '" + Rest(at_) + "'";
      return false;
    }
    const std::size_t close = s_.find(quote, at_ + 1);
    if (close == std::string::npos) {
      *error = "the name at '" + Rest(at_) + "' has no closing quote";
      return false;
    }
    *out = s_.substr(at_ + 1, close - at_ - 1);
    at_ = close + 1;
    if (out->empty()) *error = "empty feature name";
    return !out->empty();
  }
  // A feature id or a quoted name.
  bool Feature(FeatureRef* ref, std::string* error) {
    const char c = Peek();
    if (c == '"' || c == '\'') {
      ref->by_name = true;
      return Quoted(&ref->name, error);
    }
    long long id = 0;
    if (!Integer(0, 2147483646, &id, error)) return false;
    ref->id = static_cast<uint32_t>(id);
    return true;
  }
  std::string Rest(std::size_t from) const {
    std::string rest = s_.substr(from, 20);
    return rest.empty() ? "end of value" : rest;
  }
  std::size_t at() const { return at_; }

 private:
  const std::string& s_;
  std::size_t at_ = 0;
};

std::string Unexpected(Scanner& in, const char* expected) {
  in.SkipSpace();
  return std::string("unexpected '") + in.Rest(in.at()) + "'; " + expected;
}

// One value of a monotone constraint: -1, 0 or 1.
bool MonotoneValue(Scanner& in, int* out, std::string* error) {
  long long v = 0;
  std::string why;
  if (!in.Integer(-1, 1, &v, &why)) {
    *error = why + "; each value must be -1 (decreasing), 0 (none) or 1 (increasing)";
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

std::string ParseNamedMonotone(Scanner& in, MonotoneText* out) {
  std::set<std::string> seen;
  if (in.Take('}')) return "";
  do {
    std::pair<FeatureRef, int> item;
    item.first.by_name = true;
    std::string error;
    if (!in.Quoted(&item.first.name, &error)) return error + "; " + kMonotoneForms;
    if (!seen.insert(item.first.name).second) return "feature '" + item.first.name + "' twice";
    if (!in.Take(':')) return Unexpected(in, "expected ':' after a feature name");
    if (!MonotoneValue(in, &item.second, &error)) return error;
    out->named.push_back(item);
  } while (in.Take(',') && in.Peek() != '}');
  if (!in.Take('}')) return Unexpected(in, "expected ',' or '}'");
  return "";
}

std::string ParsePositionalMonotone(Scanner& in, MonotoneText* out) {
  const char open = in.Peek();
  const char close = open == '(' ? ')' : open == '[' ? ']' : '\0';
  if (close != '\0') in.Take(open);
  while (!(close != '\0' ? in.Peek() == close : in.Done())) {
    int v = 0;
    std::string error;
    if (!MonotoneValue(in, &v, &error)) return error;
    out->values.push_back(v);
    if (!in.Take(',')) break;  // "(1,)" is XGBoost's one-value form
  }
  if (close != '\0' && !in.Take(close)) {
    return Unexpected(in, close == ')' ? "expected ',' or ')'" : "expected ',' or ']'");
  }
  return "";
}

}  // namespace

std::string ParseMonotoneText(const std::string& text, MonotoneText* out) {
  *out = MonotoneText{};
  Scanner in(text);
  std::string error = in.Take('{') ? ParseNamedMonotone(in, out) : ParsePositionalMonotone(in, out);
  if (error.empty() && !in.Done()) error = Unexpected(in, kMonotoneForms);
  return error;
}

std::string ParseInteractionText(const std::string& text,
                                 std::vector<std::vector<FeatureRef>>* out) {
  out->clear();
  Scanner in(text);
  if (in.Done()) return "";
  if (!in.Take('[')) return Unexpected(in, kInteractionForm);
  while (in.Peek() != ']') {
    if (!in.Take('[')) return Unexpected(in, kInteractionForm);
    out->emplace_back();
    while (in.Peek() != ']') {
      FeatureRef ref;
      std::string error;
      if (!in.Feature(&ref, &error)) return error + "; " + kInteractionForm;
      out->back().push_back(ref);
      if (!in.Take(',')) break;
    }
    if (!in.Take(']')) return Unexpected(in, "expected ',' or ']' inside a set");
    if (!in.Take(',')) break;
  }
  if (!in.Take(']') || !in.Done()) return Unexpected(in, kInteractionForm);
  return "";
}

bool CheckMonotoneText(const std::string& value, std::string* error) {
  MonotoneText parsed;
  *error = ParseMonotoneText(value, &parsed);
  return false;  // go on with the ordinary checks (none for a free string)
}

bool CheckInteractionText(const std::string& value, std::string* error) {
  std::vector<std::vector<FeatureRef>> parsed;
  *error = ParseInteractionText(value, &parsed);
  return false;
}

}  // namespace ringboost
