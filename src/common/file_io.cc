#include "common/file_io.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <mutex>

#include "common/error.h"
#include "common/random.h"

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

// The temporary file of the write in progress, removed by a SIGINT, SIGTERM or SIGHUP that ends
// the process in the middle of it (the handler then lets the signal end it as before). One write
// at a time: the mutex holds the others off.
std::mutex g_temp_mutex;
char g_temp_path[PATH_MAX];
volatile sig_atomic_t g_temp_set = 0;
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

void RemoveTempAndResignal(int sig) {
  if (g_temp_set) ::unlink(g_temp_path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// Creates a new temporary file beside `target` (O_EXCL | O_NOFOLLOW: never a file or a link
// that someone placed at a guessable name) and returns its descriptor; *tmp is its path. The name
// is the target's plus ".tmp-PID-RANDOM", or, where that would pass NAME_MAX, ".rb.tmp-..." in
// the target's folder.
int CreateTempBeside(const std::string& target, std::string* tmp) {
  static std::atomic<uint64_t> calls{0};
  const std::string folder = FolderOf(target);
  const std::string base = target.substr(folder.size());
  for (int attempt = 0;; ++attempt) {
    char suffix[48];
    const uint64_t now =
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    std::snprintf(suffix, sizeof(suffix), ".tmp-%d-%08x", static_cast<int>(::getpid()),
                  static_cast<unsigned>(Mix64(now ^ (calls++ << 32))));
    *tmp =
        base.size() + std::strlen(suffix) <= NAME_MAX ? target + suffix : folder + ".rb" + suffix;
    const int fd = ::open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST || attempt == 100) return fd;
  }
}

// A temporary file beside a target, removed if one of kCleanupSignals ends the process while
// this object lives (a signal the process ignores, as under nohup, or handles itself is left
// alone). The file is created with those signals held off in this thread until its path is
// recorded, so no signal falls between the two.
class TrackedTempFile {
 public:
  explicit TrackedTempFile(const std::string& target) : lock_(g_temp_mutex) {
    for (std::size_t i = 0; i < std::size(kCleanupSignals); ++i) {
      struct sigaction now {};
      installed_[i] = ::sigaction(kCleanupSignals[i], nullptr, &old_[i]) == 0 &&
                      old_[i].sa_handler == SIG_DFL && !(old_[i].sa_flags & SA_SIGINFO);
      if (!installed_[i]) continue;
      now.sa_handler = RemoveTempAndResignal;
      sigemptyset(&now.sa_mask);
      installed_[i] = ::sigaction(kCleanupSignals[i], &now, nullptr) == 0;
    }
    sigset_t held, before;
    sigemptyset(&held);
    for (int sig : kCleanupSignals) sigaddset(&held, sig);
    ::pthread_sigmask(SIG_BLOCK, &held, &before);
    fd_ = CreateTempBeside(target, &path_);
    if (fd_ >= 0 && path_.size() < sizeof(g_temp_path)) {
      std::memcpy(g_temp_path, path_.c_str(), path_.size() + 1);
      g_temp_set = 1;
    }
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  }
  ~TrackedTempFile() {
    g_temp_set = 0;
    for (std::size_t i = 0; i < std::size(kCleanupSignals); ++i) {
      if (installed_[i]) ::sigaction(kCleanupSignals[i], &old_[i], nullptr);
    }
  }
  TrackedTempFile(const TrackedTempFile&) = delete;
  TrackedTempFile& operator=(const TrackedTempFile&) = delete;

  int fd() const { return fd_; }  // -1 when it could not be created (errno says why)
  const std::string& path() const { return path_; }

 private:
  std::lock_guard<std::mutex> lock_;
  struct sigaction old_[std::size(kCleanupSignals)]{};
  bool installed_[std::size(kCleanupSignals)] = {};
  int fd_ = -1;
  std::string path_;
};

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
  const TrackedTempFile temp(target.path);
  const int fd = temp.fd();
  const std::string& tmp = temp.path();
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

bool NamesStandardOutput(const std::string& path) { return path == "-" || path == "stdout"; }

void WriteOutput(const std::string& path, const std::string& content) {
  if (!NamesStandardOutput(path)) return WriteFileAtomic(path, content);
  std::fwrite(content.data(), 1, content.size(), stdout);  // main() checks the flush
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
