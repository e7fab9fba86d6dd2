// UTF-8 checks for text that must be UTF-8 where it goes: JSON model files (feature names), the
// kubernetes manifest's strings.
#pragma once

#include <cstddef>
#include <string>

namespace ringboost {

// The code point of the UTF-8 sequence at text[at] and its length in bytes; -1 (length 1) where
// no valid sequence starts there (a stray continuation byte, one cut short, an overlong form, a
// surrogate, a code point above U+10FFFF).
long DecodeUtf8(const std::string& text, std::size_t at, std::size_t* length);

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or code points above
// U+10FFFF).
bool IsUtf8(const std::string& text);

}  // namespace ringboost
