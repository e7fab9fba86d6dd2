#include "common/error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ringboost {

Status ErrnoStatus(const std::string& call, const std::string& what) {
  int err = errno;
  return Status::Fail(call + " " + what + ": " + std::strerror(err) + " (errno " +
                      std::to_string(err) + ")");
}

namespace {

// Appends byte c, escaped when it is a control byte (or DEL).
void AppendPrintable(char c, std::string* out) {
  const unsigned char u = static_cast<unsigned char>(c);
  if (c == '\t') {
    *out += "\\t";
  } else if (c == '\r') {
    *out += "\\r";
  } else if (u < 0x20 || u == 0x7f) {
    static const char kHex[] = "0123456789abcdef";
    *out += "\\x";
    *out += kHex[u >> 4];
    *out += kHex[u & 15];
  } else {
    *out += c;
  }
}

}  // namespace

std::string PrintableMessage(const std::string& message, std::size_t max_line) {
  std::string out;
  out.reserve(std::min(message.size(), std::size_t{1} << 16));
  std::size_t begin = 0;
  while (begin <= message.size()) {
    std::size_t end = message.find('\n', begin);
    if (end == std::string::npos) end = message.size();
    const std::size_t shown = std::min(end - begin, max_line);
    for (std::size_t i = begin; i < begin + shown; ++i) AppendPrintable(message[i], &out);
    if (shown < end - begin) {
      out += "... (" + std::to_string(end - begin - shown) + " more bytes)";
    }
    if (end == message.size()) break;
    out += '\n';
    begin = end + 1;
  }
  return out;
}

namespace detail {
void CheckFailed(const char* expr, const char* file, int line, const std::string& msg) {
  std::ostringstream oss;
  oss << "internal check failed: " << expr << " at " << file << ":" << line;
  if (!msg.empty()) oss << ": " << msg;
  throw Error(oss.str());
}
}  // namespace detail

}  // namespace ringboost
