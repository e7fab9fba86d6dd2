#include "yaml.h"

#include <cstddef>
#include <cstdio>

namespace ringboost::submit {

namespace {

// The code points Quoted() writes as \uXXXX (see yaml.h).
bool NeedsEscape(long code) {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code == 0x2028 || code == 0x2029 ||
         code == 0xfeff || code == 0xfffe || code == 0xffff;
}

}  // namespace

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  std::size_t length = 0;
  for (std::size_t at = 0; at < text.size(); at += length) {
    const long code = DecodeUtf8(text, at, &length);
    RB_CHECK_MSG(code >= 0, "a manifest string that is not UTF-8 was not refused");
    if (code == '"' || code == '\\') {
      out += '\\';
      out += static_cast<char>(code);
    } else if (NeedsEscape(code)) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(code));
      out += buf;
    } else {
      out.append(text, at, length);
    }
  }
  return out + "\"";
}

std::string Yaml::Render(int indent) const {
  std::string out;
  const std::string pad(indent, ' ');
  for (const auto& [key, value] : map_) {
    out += pad + key + ":";
    if (value.kind_ == kScalar || value.Empty()) {
      out += " " + value.Inline() + "\n";
    } else {
      // A list sits at its key's indent, a map's entries two further in.
      out += "\n" + value.Render(value.kind_ == kList ? indent : indent + 2);
    }
  }
  for (const Yaml& item : list_) {
    RB_CHECK(item.kind_ != kList);
    if (item.kind_ == kScalar || item.Empty()) {
      out += pad + "- " + item.Inline() + "\n";
    } else {
      // A map in a list: its first entry on the dash's line, the rest aligned under it.
      out += pad + "- " + item.Render(indent + 2).substr(indent + 2);
    }
  }
  return out;
}

}  // namespace ringboost::submit
