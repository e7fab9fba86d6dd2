// Checks on a model file's bytes before nlohmann builds a DOM from them, XGBoost's literals for
// non-finite floats made parseable, and values cut short for error messages (xgboost_doc.h).
//
// Why a pass before the parse: nlohmann's UBJSON reader recurses once per nesting level, so a
// file of a few kilobytes of '[' overflows the stack before any check on the DOM could run. A
// SAX pass that builds nothing stops the reader at the limit, before it goes deeper. The same pass
// bounds what the reader would build: UBJSON declares counts, and a typed array of null, true or
// false (which XGBoost never writes) holds any count in no bytes at all, so 18 bytes could make
// the DOM grow without end. Every value but those takes at least a byte, so a count beyond the
// file's size, or more values than it has bytes, is no model. JSON text
// is parsed without recursion, but dumping or comparing a deep value recurses, so its depth is
// checked too (on the text, which is cheaper than a SAX pass).
#include <algorithm>
#include <string>

#include "common/error.h"
#include "model/xgboost_doc.h"

namespace ringboost::xgb {
namespace {

// Stops the reader (returns false) once the nesting of arrays and objects passes kMaxModelDepth,
// a declared count passes the file's size, or the values outnumber its bytes; a parse error
// stops it too. Builds nothing.
class UbjLimits : public nlohmann::json_sax<Json> {
 public:
  explicit UbjLimits(std::size_t bytes) : bytes_(bytes) {}

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t count) override { return Value() && Count(count) && Open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t count) override { return Value() && Count(count) && Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    problem_ = std::string("not a valid UBJSON model (a truncated file?): ") + e.what();
    return false;
  }

  // Empty when the bytes passed.
  const std::string& problem() const { return problem_; }

 private:
  bool Value() {
    if (++values_ <= bytes_) return true;
    problem_ = "not a model (UBJSON holds more values than its " + std::to_string(bytes_) +
               " bytes: a typed array of null, true or false, which XGBoost never writes)";
    return false;
  }
  // `count` is npos when the container declares none.
  bool Count(std::size_t count) {
    if (count == static_cast<std::size_t>(-1) || count <= bytes_) return true;
    problem_ = "not a model (UBJSON declares " + std::to_string(count) + " values in a file of " +
               std::to_string(bytes_) + " bytes)";
    return false;
  }
  bool Open() {
    if (++depth_ <= kMaxModelDepth) return true;
    problem_ = "not a model (UBJSON nested more than " + std::to_string(kMaxModelDepth) +
               " levels deep; a model nests at most 7)";
    return false;
  }
  bool Close() {
    --depth_;
    return true;
  }

  std::size_t bytes_;
  std::size_t values_ = 0;
  int depth_ = 0;
  std::string problem_;
};

// The longest string an error message quotes.
constexpr std::size_t kBriefString = 40;

}  // namespace

int JsonTextDepth(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxModelDepth) break;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

std::string NonFiniteLiteralsToNull(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    in_string = c == '"';
    bool replaced = false;
    for (const char* literal : {"NaN", "Infinity", "-Infinity"}) {
      const std::size_t n = std::char_traits<char>::length(literal);
      if (text.compare(i, n, literal) == 0) {
        out += "null";
        i += n - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

std::string Brief(const Json& v) {
  const auto replace = Json::error_handler_t::replace;  // a string from UBJSON may not be UTF-8
  switch (v.type()) {
    case Json::value_t::object:
      return "an object of " + std::to_string(v.size()) + " keys";
    case Json::value_t::array:
      return "an array of " + std::to_string(v.size()) + " values";
    case Json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      if (s.size() <= kBriefString) return v.dump(-1, ' ', false, replace);
      return Json(s.substr(0, kBriefString)).dump(-1, ' ', false, replace) + "...";
    }
    default:
      return v.dump(-1, ' ', false, replace);
  }
}

void CheckUbjLimits(const std::string& bytes, const std::string& source) {
  UbjLimits limits(bytes.size());
  if (!Json::sax_parse(bytes, &limits, nlohmann::detail::input_format_t::ubjson)) {
    RB_FAIL(source << ": "
                   << (limits.problem().empty() ? "not a valid UBJSON model" : limits.problem()));
  }
}

}  // namespace ringboost::xgb
