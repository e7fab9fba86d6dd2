#include "process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

extern char** environ;

namespace ringboost::submit {
namespace {

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

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void ExecChild(int out_fd, pid_t parent, char* const* argv, char* const* envp) {
  setpgid(0, 0);                        // its own group: Terminate() signals it and its children
  prctl(PR_SET_PDEATHSIG, SIGKILL);     // dies with ringboost-submit, never an orphan
  if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
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

// Splits what the child writes into lines for on_line, until end of file. Each byte is looked at
// once, and a line longer than kMaxLineBytes goes out in pieces (all but the last marked with
// kLineContinues), so a worker that never writes a newline costs linear time and bounded memory.
void ReadLines(int fd, const std::function<void(const std::string&)>& on_line) {
  std::string pending;  // the line so far: at most kMaxLineBytes
  pending.reserve(kMaxLineBytes);
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const char* end = buf + n;
    for (const char* p = buf; p < end;) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      const char* stop = nl != nullptr ? nl : end;
      while (p < stop) {
        if (pending.size() == kMaxLineBytes) {  // more of a full line: send what it has
          on_line(pending + kLineContinues);
          pending.clear();
        }
        const std::size_t take = std::min<std::size_t>(stop - p, kMaxLineBytes - pending.size());
        pending.append(p, take);
        p += take;
      }
      if (nl == nullptr) break;
      on_line(pending);
      pending.clear();
      p = nl + 1;
    }
  }
  if (!pending.empty()) on_line(pending);
  close(fd);
}

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
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
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) < 0) return ErrnoStatus("pipe", "for the output of " + argv[0]);
  const pid_t parent = getpid();
  // vfork, not fork: fork copies this process's page tables, which grow with every worker's
  // reader thread, so starting N workers cost O(N^2) (1024 local workers: most of the launch).
  // The child shares our memory until exec and only makes the async-signal-safe calls of
  // ExecChild; its descriptor table and signal dispositions are its own.
  pid_t pid = vfork();
  if (pid < 0) {
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
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->pid_ = pid;
  child->reader_ = std::thread(ReadLines, fds[0], std::move(on_line));
  *out = std::move(child);
  return Status::OK();
}

ChildProcess::~ChildProcess() {
  if (!ended_) Terminate(1);
  if (reader_.joinable()) reader_.join();
}

bool ChildProcess::Poll(int* exit_code) {
  if (!ended_) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == 0 || (r < 0 && errno == EINTR)) return false;
    ended_ = true;
    exit_code_ = r == pid_ ? ExitCodeOf(status) : 255;
    // Its last lines are read before anyone reports how it ended.
    if (reader_.joinable()) reader_.join();
  }
  *exit_code = exit_code_;
  return true;
}

int ChildProcess::Wait() {
  int code = 0;
  while (!Poll(&code)) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, 0);
    if (r == pid_) {
      ended_ = true;
      exit_code_ = ExitCodeOf(status);
      if (reader_.joinable()) reader_.join();
    }
  }
  return exit_code_;
}

void ChildProcess::Terminate(double grace_s) {
  int code = 0;
  if (Poll(&code)) return;
  kill(-pid_, SIGTERM);
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(grace_s));
  while (std::chrono::steady_clock::now() < until) {
    if (Poll(&code)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid_, SIGKILL);
  Wait();
}

std::string ChildProcess::Describe(int exit_code) {
  if (exit_code > 128 && exit_code < 128 + 65) {
    const int sig = exit_code - 128;
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "exit code " + std::to_string(exit_code);
}

}  // namespace ringboost::submit
