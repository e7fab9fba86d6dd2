#include "common/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace ringboost {

void WriteFileAtomic(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) ThrowIfError(ErrnoStatus("open", "'" + tmp + "' for writing"));
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      Status s = ErrnoStatus("write", "'" + tmp + "'");
      ::close(fd);
      ::unlink(tmp.c_str());
      ThrowIfError(s);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    Status s = ErrnoStatus("fsync/close", "'" + tmp + "'");
    ::unlink(tmp.c_str());
    ThrowIfError(s);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = ErrnoStatus("rename", "'" + tmp + "' to '" + path + "'");
    ::unlink(tmp.c_str());
    ThrowIfError(s);
  }
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) RB_FAIL("cannot open '" << path << "': " << std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ringboost
