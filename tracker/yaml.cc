#include "yaml.h"

#include <cstdio>

namespace ringboost::submit {

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
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
