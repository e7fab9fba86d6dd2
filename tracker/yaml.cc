#include "yaml.h"

#include <cstddef>
#include <cstdio>

namespace ringboost::submit {

namespace {

// The code point of the UTF-8 sequence at text[at] and its length in bytes; -1 (length 1) where
// no valid sequence starts there (a stray continuation byte, one cut short, an overlong form, a
// surrogate, a code point above U+10FFFF).
long DecodeUtf8(const std::string& text, std::size_t at, std::size_t* length) {
  const unsigned char lead = static_cast<unsigned char>(text[at]);
  *length = 1;
  if (lead < 0x80) return lead;
  std::size_t extra = 0;
  long code = 0, least = 0;
  if ((lead & 0xe0) == 0xc0) {
    extra = 1, code = lead & 0x1f, least = 0x80;
  } else if ((lead & 0xf0) == 0xe0) {
    extra = 2, code = lead & 0x0f, least = 0x800;
  } else if ((lead & 0xf8) == 0xf0) {
    extra = 3, code = lead & 0x07, least = 0x10000;
  } else {
    return -1;
  }
  for (std::size_t k = 1; k <= extra; ++k) {
    if (at + k >= text.size()) return -1;
    const unsigned char next = static_cast<unsigned char>(text[at + k]);
    if ((next & 0xc0) != 0x80) return -1;
    code = (code << 6) | (next & 0x3f);
  }
  if (code < least || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return -1;
  *length = extra + 1;
  return code;
}

// The code points Quoted() writes as \uXXXX (see yaml.h).
bool NeedsEscape(long code) {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code == 0x2028 || code == 0x2029 ||
         code == 0xfeff || code == 0xfffe || code == 0xffff;
}

}  // namespace

bool IsUtf8(const std::string& text) {
  std::size_t length = 0;
  for (std::size_t at = 0; at < text.size(); at += length) {
    if (DecodeUtf8(text, at, &length) < 0) return false;
  }
  return true;
}

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
      std::snprintf(buf, sizeof(buf), "\\u%04lx", code);
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
