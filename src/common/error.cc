#include "common/error.h"

#include <cerrno>
#include <cstring>

namespace ringboost {

Status ErrnoStatus(const std::string& call, const std::string& what) {
  int err = errno;
  return Status::Fail(call + " " + what + ": " + std::strerror(err) + " (errno " +
                      std::to_string(err) + ")");
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
