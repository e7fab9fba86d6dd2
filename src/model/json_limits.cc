// Checks on a model file's bytes before nlohmann builds a DOM from them (xgboost_doc.h).
//
// Why a pass before the parse: nlohmann's UBJSON reader recurses once per nesting level, so a
// file of a few kilobytes of '[' overflows the stack before any check on the DOM could run. A
// SAX pass that builds nothing stops the reader at the limit, before it goes deeper.
#include <string>

#include "common/error.h"
#include "model/xgboost_doc.h"

namespace ringboost::xgb {
namespace {

// Counts the nesting of arrays and objects and stops the reader (returns false) once it passes
// kMaxModelDepth; a parse error stops it too. Builds nothing.
class UbjLimits : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return Open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    problem_ = std::string("not a valid UBJSON model (a truncated file?): ") + e.what();
    return false;
  }

  // Empty when the bytes passed.
  const std::string& problem() const { return problem_; }

 private:
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

  int depth_ = 0;
  std::string problem_;
};

}  // namespace

void CheckUbjLimits(const std::string& bytes, const std::string& source) {
  UbjLimits limits;
  if (!Json::sax_parse(bytes, &limits, nlohmann::detail::input_format_t::ubjson)) {
    RB_FAIL(source << ": "
                   << (limits.problem().empty() ? "not a valid UBJSON model" : limits.problem()));
  }
}

}  // namespace ringboost::xgb
