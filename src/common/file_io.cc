#include "common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"

namespace ringboost {
namespace {

constexpr int kMaxLinkHops = 40;  // as the kernel's ELOOP limit

std::string ReadLink(const std::string& path) {
  std::string target(4096, '\0');
  const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
  if (n < 0) ThrowIfError(ErrnoStatus("readlink", "'" + path + "'"));
  target.resize(static_cast<std::size_t>(n));
  return target;
}

// The folder part of `path` with its trailing '/', or "" for a bare name.
std::string FolderOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// Writes all of `content` to fd; the failing call's Status otherwise.
Status WriteAll(int fd, const std::string& content, const std::string& what) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write", what);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return Status::OK();
}

// The descriptor `path` names when it is one of this process's own (/proc/self/fd/N,
// /proc/PID/fd/N, /dev/fd/N), else -1.
int OwnDescriptor(const std::string& path) {
  std::string rest;
  for (const std::string& prefix :
       {std::string("/proc/self/fd/"), "/proc/" + std::to_string(::getpid()) + "/fd/",
        std::string("/dev/fd/")}) {
    if (path.rfind(prefix, 0) == 0) rest = path.substr(prefix.size());
  }
  if (rest.empty() || rest.size() > 9 ||
      rest.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  const int fd = std::stoi(rest);
  return ::fcntl(fd, F_GETFD) == -1 ? -1 : fd;
}

// A special file or a /proc-named open file: no temporary file, no rename, no fsync (a pipe
// has none to give). One of this process's descriptors (/dev/stdout) is written through itself,
// so that its offset, shared with the shell that opened it (`{ ...; } > out.txt`), moves on past
// what was written; another regular file behind /proc is appended to.
void WriteInPlace(const std::string& path, const WriteTarget& target, const std::string& content) {
  const int own = OwnDescriptor(target.path);
  if (own >= 0) return ThrowIfError(WriteAll(own, content, "'" + path + "'"));
  struct stat st;
  const bool regular = ::stat(target.path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const int fd = ::open(target.path.c_str(), O_WRONLY | O_CLOEXEC | (regular ? O_APPEND : 0));
  if (fd < 0) ThrowIfError(ErrnoStatus("open", "'" + path + "' for writing"));
  Status s = WriteAll(fd, content, "'" + path + "'");
  if (::close(fd) != 0 && s.ok()) s = ErrnoStatus("close", "'" + path + "'");
  ThrowIfError(s);
}

}  // namespace

WriteTarget ResolveWriteTarget(const std::string& path) {
  WriteTarget t;
  t.path = path;
  struct stat st;
  const bool special =
      ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
  for (int hops = 0; !special; ++hops) {
    if (::lstat(t.path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) break;
    if (hops == kMaxLinkHops) RB_FAIL("'" << path << "': too many levels of symbolic links");
    // /proc's links (/dev/stdout -> /proc/self/fd/1 -> pipe:[7]) name open files, not paths;
    // so do /dev/fd/N's (/dev/fd itself links to /proc/self/fd).
    if (t.path.rfind("/proc/", 0) == 0 || t.path.rfind("/dev/fd/", 0) == 0) {
      t.in_place = true;
      break;
    }
    const std::string link = ReadLink(t.path);
    t.path = link[0] == '/' ? link : FolderOf(t.path) + link;
  }
  t.exists = ::stat(t.path.c_str(), &st) == 0;
  t.is_folder = t.exists && S_ISDIR(st.st_mode);
  if (t.exists && !S_ISREG(st.st_mode) && !t.is_folder) t.in_place = true;
  return t;
}

void WriteFileAtomic(const std::string& path, const std::string& content) {
  const WriteTarget target = ResolveWriteTarget(path);
  if (target.is_folder) RB_FAIL("cannot write '" << path << "': it is a folder");
  if (target.in_place) return WriteInPlace(path, target, content);
  const std::string named =
      target.path == path ? "'" + path + "'" : "'" + path + "' (-> '" + target.path + "')";
  mode_t mode = 0644;
  struct stat st;
  if (target.exists && ::stat(target.path.c_str(), &st) == 0) mode = st.st_mode & 07777;
  const std::string tmp = target.path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    ThrowIfError(ErrnoStatus("open", "a temporary file '" + tmp + "' to write " + named));
  }
  Status s = WriteAll(fd, content, named + " (temporary file '" + tmp + "')");
  if (s.ok() && target.exists && ::fchmod(fd, mode) != 0) s = ErrnoStatus("fchmod", named);
  if (s.ok() && ::fsync(fd) != 0) s = ErrnoStatus("fsync", named);
  if (::close(fd) != 0 && s.ok()) s = ErrnoStatus("close", named);
  if (s.ok() && ::rename(tmp.c_str(), target.path.c_str()) != 0) {
    s = ErrnoStatus("rename", "'" + tmp + "' to " + named);
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    ThrowIfError(s);
  }
}

// read(2) rather than a stream: a stream reads a folder, or a file that fails midway, as an
// empty or short file without a word.
std::string ReadWholeFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) RB_FAIL("cannot open '" << path << "': " << std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    RB_FAIL(path << ": is a directory, not a file");
  }
  std::string out;
  if (S_ISREG(st.st_mode)) out.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      RB_FAIL("cannot read '" << path << "': " << std::strerror(err));
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace ringboost
