#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>

extern char** environ;

namespace ringboost::submit {
namespace {

// How long Poll waits, after the child exited, for the end of its output: a process it left
// behind (`sleep 60 &`) may hold the pipe open, and its exit is acted on all the same.
constexpr double kRelayDrainS = 1.0;
// Reads of what the pipe still holds once the relay is told to stop (256 x 4 KiB: more than a
// full pipe).
constexpr int kDrainReads = 256;

// This process's environment with `extra` set on top (same keys replaced).
std::vector<std::string> MergedEnvironment(const EnvList& extra) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) merged[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [k, v] : extra) merged[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : merged) out.push_back(k + "=" + v);
  return out;
}

// ---- the guard ---------------------------------------------------------------------------------
// PR_SET_PDEATHSIG reaches a worker, not what the worker started (`sh -c` and its commands,
// mpirun's ranks, which Open MPI puts in groups of their own). So one process, forked before the
// first worker, holds the other end of a socket and the list of the workers' process groups
// (each added when its worker starts, removed before it is reaped, so that its id cannot have
// been reused). When ringboost-submit ends in any way, even by SIGKILL, the guard reads the end
// of the socket: it sends SIGTERM to every group still listed (mpirun then ends its ranks), and
// SIGKILL after kGuardGraceS to whatever is left. A normal end lists none, and it just exits.

constexpr int kGuardMaxGroups = 1 << 16;  // more than the workers of one job
constexpr double kGuardGraceS = 3.0;

pid_t g_guard_groups[kGuardMaxGroups];  // the guard's own copy, after the fork
int g_guard_fd = -1;                    // our end of the socket; -1: no guard (PDEATHSIG alone)
std::once_flag g_guard_once;

void SleepMs(long ms) {
  timespec ts{0, ms * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

// The guard, after fork from a process that may have threads: only async-signal-safe calls.
[[noreturn]] void GuardMain(int fd) {
  signal(SIGINT, SIG_IGN);  // Ctrl-C reaches the whole foreground group: ringboost-submit acts
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  setpgid(0, 0);  // not ended by a signal to ringboost-submit's group
  if (dup2(fd, STDIN_FILENO) < 0) _exit(1);
  close_range(STDIN_FILENO + 1, ~0U, 0);  // the tracker's socket and the workers' pipes close here
  int n = 0;
  for (;;) {
    pid_t message = 0;  // +group: a worker started; -group: one is about to be reaped
    const ssize_t got = recv(STDIN_FILENO, &message, sizeof(message), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got != static_cast<ssize_t>(sizeof(message))) break;  // ringboost-submit has ended
    if (message > 0 && n < kGuardMaxGroups) g_guard_groups[n++] = message;
    for (int i = 0; message < 0 && i < n; ++i) {
      if (g_guard_groups[i] == -message) g_guard_groups[i] = g_guard_groups[--n];
    }
  }
  for (int i = 0; i < n; ++i) kill(-g_guard_groups[i], SIGTERM);
  for (int waited = 0; waited < kGuardGraceS * 1000; waited += 20) {
    bool any = false;
    for (int i = 0; i < n && !any; ++i) any = kill(-g_guard_groups[i], 0) == 0;
    if (!any) _exit(0);
    SleepMs(20);
  }
  for (int i = 0; i < n; ++i) kill(-g_guard_groups[i], SIGKILL);
  _exit(0);
}

void StartGuard() {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) return;
  const pid_t pid = fork();
  if (pid == 0) GuardMain(fds[1]);
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return;
  }
  g_guard_fd = fds[0];
}

// Tells the guard that process group `group` began (+) or is about to be reaped (-).
void TellGuard(pid_t message) {
  if (g_guard_fd >= 0) (void)!send(g_guard_fd, &message, sizeof(message), MSG_NOSIGNAL);
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void ExecChild(int out_fd, pid_t parent, char* const* argv, char* const* envp) {
  setpgid(0, 0);  // its own group: Terminate() signals it and its children
  // Ends with ringboost-submit: the guard's one SIGTERM (a second one makes mpirun abort without
  // ending its ranks), or SIGKILL at once where there is no guard.
  if (g_guard_fd < 0) prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent died (vfork: it waits for our exec, so only by a signal) before telling the guard.
  if (getppid() != parent) _exit(127);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  dup2(out_fd, STDOUT_FILENO);
  dup2(out_fd, STDERR_FILENO);
  close(out_fd);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  execvpe(argv[0], argv, envp);
  // No strerror here: it may allocate, and this child shares the parent's heap (vfork).
  const int err = errno;
  const char* what = "ringboost-submit: cannot run the worker command: ";
  (void)!write(STDERR_FILENO, what, std::strlen(what));
  (void)!write(STDERR_FILENO, argv[0], std::strlen(argv[0]));
  const char* why = err == ENOENT   ? ": no such file\n"
                    : err == EACCES ? ": permission denied\n"
                                    : ": exec failed\n";
  (void)!write(STDERR_FILENO, why, std::strlen(why));
  _exit(127);
}

// Cuts a child's output into lines for on_line. Each byte is looked at once, and a line longer
// than kMaxLineBytes goes out in pieces (all but the last marked with kLineContinues), so a
// worker that never writes a newline costs linear time and bounded memory.
class LineSplitter {
 public:
  explicit LineSplitter(const std::function<void(const std::string&)>& on_line)
      : on_line_(on_line) {
    pending_.reserve(kMaxLineBytes);
  }
  void Add(const char* p, const char* end) {
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      const char* stop = nl != nullptr ? nl : end;
      while (p < stop) {
        if (pending_.size() == kMaxLineBytes) {  // more of a full line: send what it has
          on_line_(pending_ + kLineContinues);
          pending_.clear();
        }
        const std::size_t take = std::min<std::size_t>(stop - p, kMaxLineBytes - pending_.size());
        pending_.append(p, take);
        p += take;
      }
      if (nl == nullptr) return;
      on_line_(pending_);
      pending_.clear();
      p = nl + 1;
    }
  }
  void Finish() {
    if (!pending_.empty()) on_line_(pending_);
    pending_.clear();
  }

 private:
  const std::function<void(const std::string&)>& on_line_;
  std::string pending_;  // the line so far: at most kMaxLineBytes
};

// The reader thread: relays `fd` (non-blocking) until its end of file, or until `wake_fd` (an
// eventfd) is signalled, after which it relays what the pipe still holds and stops; closes fd.
void Relay(int fd, int wake_fd, std::function<void(const std::string&)> on_line,
           std::atomic<bool>* done) {
  LineSplitter lines(on_line);
  char buf[4096];
  for (int stopping = 0;;) {  // after the wake-up: reads left before giving up on the end
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      lines.Add(buf, buf + n);
      if (stopping > 0 && --stopping == 0) break;  // a writer outside keeps it full
      continue;
    }
    if (n == 0) break;  // every holder of the pipe has closed it
    if (errno == EINTR) continue;
    if (errno != EAGAIN || stopping > 0) break;  // an error, or drained after the wake-up
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    if (poll(fds, 2, -1) > 0 && (fds[1].revents & POLLIN) != 0) stopping = kDrainReads;
  }
  lines.Finish();
  close(fd);
  done->store(true);
}

// The exit code of an ended child as waitid reports it: its code, or 128 + signal.
int ExitCodeOf(const siginfo_t& info) {
  return info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
}

}  // namespace

Status ChildProcess::Start(const std::vector<std::string>& argv, const EnvList& env,
                           std::function<void(const std::string& line)> on_line,
                           std::unique_ptr<ChildProcess>* out) {
  if (argv.empty()) return Status::Fail("no command to run");
  std::vector<std::string> env_strings = MergedEnvironment(env);
  std::vector<char*> c_argv, c_env;
  for (const std::string& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  for (const std::string& e : env_strings) c_env.push_back(const_cast<char*>(e.c_str()));
  c_env.push_back(nullptr);
  const int wake_fd = eventfd(0, EFD_CLOEXEC);
  if (wake_fd < 0) return ErrnoStatus("eventfd", "for the output of " + argv[0]);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) < 0) {
    close(wake_fd);
    return ErrnoStatus("pipe", "for the output of " + argv[0]);
  }
  std::call_once(g_guard_once, StartGuard);
  const pid_t parent = getpid();
  // vfork, not fork: fork copies this process's page tables, which grow with every worker's
  // reader thread, so starting N workers cost O(N^2) (1024 local workers: most of the launch).
  // The child shares our memory until exec and only makes the async-signal-safe calls of
  // ExecChild; its descriptor table and signal dispositions are its own.
  pid_t pid = vfork();
  if (pid < 0) {
    close(wake_fd);
    close(fds[0]);
    close(fds[1]);
    return ErrnoStatus("fork", "to start " + argv[0]);
  }
  if (pid == 0) {
    close(fds[0]);
    ExecChild(fds[1], parent, c_argv.data(), c_env.data());
  }
  close(fds[1]);
  setpgid(pid, pid);  // also here, so the group exists before anyone signals it
  TellGuard(pid);
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->pid_ = pid;
  child->wake_fd_ = wake_fd;
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  child->reader_ =
      std::thread(Relay, fds[0], child->wake_fd_, std::move(on_line), &child->relay_done_);
  *out = std::move(child);
  return Status::OK();
}

ChildProcess::~ChildProcess() { Terminate(1); }

bool ChildProcess::Exited() {
  if (exited_) return true;
  siginfo_t info{};
  // WNOWAIT: it stays a zombie, so its pid, and the id of its process group, stay ours (no new
  // process can get them) until Release() has signalled what it left in the group.
  if (waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) == 0) {
    if (info.si_pid == 0) return false;  // still running
    exit_code_ = ExitCodeOf(info);
  } else if (errno == EINTR) {
    return false;
  } else {
    exit_code_ = 255;  // not ours to wait for (cannot happen: nothing else reaps our children)
    released_ = true;
    TellGuard(-pid_);
  }
  exited_ = true;
  exited_at_ = std::chrono::steady_clock::now();
  return true;
}

bool ChildProcess::Poll(int* exit_code) {
  if (!Exited()) return false;
  // Its last lines are relayed before anyone reports how it ended, unless a process it left
  // behind holds its output open: then the exit is reported after kRelayDrainS anyway.
  const double since =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - exited_at_).count();
  if (!relay_done_.load() && since < kRelayDrainS) return false;
  *exit_code = exit_code_;
  return true;
}

int ChildProcess::Wait() {
  int code = 0;
  while (!Poll(&code)) {
    siginfo_t info{};
    if (exited_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } else {
      (void)waitid(P_PID, pid_, &info, WEXITED | WNOWAIT);  // blocks until it ends
    }
  }
  return code;
}

void ChildProcess::Terminate(double grace_s) { TerminateAll({this}, grace_s); }

void ChildProcess::TerminateAll(const std::vector<ChildProcess*>& children, double grace_s) {
  for (ChildProcess* child : children) {
    if (!child->Exited()) kill(-child->pid_, SIGTERM);
  }
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(grace_s));
  const auto all_exited = [&children] {
    return std::all_of(children.begin(), children.end(),
                       [](ChildProcess* child) { return child->Exited(); });
  };
  while (!all_exited() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (ChildProcess* child : children) {
    if (!child->Exited()) kill(-child->pid_, SIGKILL);
  }
  for (ChildProcess* child : children) child->Release();
}

void ChildProcess::Release() {
  if (!released_) {
    while (!Exited()) {
      siginfo_t info{};
      (void)waitid(P_PID, pid_, &info, WEXITED | WNOWAIT);
    }
    kill(-pid_, SIGKILL);  // what it left in its group, which may hold its output open
    TellGuard(-pid_);      // while the zombie still holds the group's id
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    released_ = true;
  }
  if (!reader_.joinable()) return;
  // The relay ends at the pipe's end of file, which a process outside the group may hold back.
  for (int i = 0; i < 50 && !relay_done_.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  reader_.join();
  close(wake_fd_);
}

std::string ChildProcess::Describe(int exit_code) {
  if (exit_code > 128 && exit_code < 128 + 65) {
    const int sig = exit_code - 128;
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "exit code " + std::to_string(exit_code);
}

}  // namespace ringboost::submit
