#include "common/utf8.h"

namespace ringboost {

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

bool IsUtf8(const std::string& text) {
  std::size_t length = 0;
  for (std::size_t at = 0; at < text.size(); at += length) {
    if (DecodeUtf8(text, at, &length) < 0) return false;
  }
  return true;
}

}  // namespace ringboost
