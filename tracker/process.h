// Child processes for the launchers: started with extra environment variables, their stdout and
// stderr read line by line (for the rank prefix), ended with SIGTERM then SIGKILL, and never
// left behind: each child gets its own process group, which Terminate() signals whole, and dies
// with ringboost-submit (PR_SET_PDEATHSIG); a guard process outlives a ringboost-submit that was
// killed, even by SIGKILL, and ends the groups of its workers (what they started included). How a
// child ended is known as soon as it exits, even when a process it started still holds its output
// open; that process is ended with the group when the child is released (Terminate, or the
// destructor).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "submit.h"

namespace ringboost::submit {

// A line of a child's output longer than kMaxLineBytes reaches on_line in pieces of that size,
// each but the last ending with kLineContinues (the relay never holds more than one piece).
constexpr std::size_t kMaxLineBytes = 64 * 1024;
constexpr char kLineContinues[] = " [line continues]";

class ChildProcess {
 public:
  // Starts argv[0] (searched in PATH) with the environment of this process plus `env`; each
  // line the child writes (stdout or stderr) goes to on_line, from a reader thread.
  static Status Start(const std::vector<std::string>& argv, const EnvList& env,
                      std::function<void(const std::string& line)> on_line,
                      std::unique_ptr<ChildProcess>* out);
  ~ChildProcess();  // Terminate(1)

  pid_t pid() const { return pid_; }
  // Non-blocking: true once the child has exited and its output has been relayed to its end, or
  // (a process it left behind holding the output open) a second after it exited; *exit_code is
  // its code, or 128 + signal.
  bool Poll(int* exit_code);
  // Blocks until Poll would say it ended; returns the code.
  int Wait();
  // SIGTERM to the child's process group unless it has exited, SIGKILL after `grace_s`; then
  // SIGKILL to what is left in the group, and the end of the relay. Returns once all is done.
  void Terminate(double grace_s = 3);
  // Terminate for several children at once: one grace period for all of them, not one each.
  static void TerminateAll(const std::vector<ChildProcess*>& children, double grace_s = 3);
  // "exit code 3" or "killed by signal 9 (Killed)".
  static std::string Describe(int exit_code);

 private:
  ChildProcess() = default;
  bool Exited();   // non-blocking; the child stays a zombie (its ids ours) until Release
  void Release();  // once it exited: kills the rest of its group, reaps it, ends the relay

  pid_t pid_ = -1;  // also the id of its process group
  bool exited_ = false;
  bool released_ = false;
  int exit_code_ = 0;
  std::chrono::steady_clock::time_point exited_at_;
  int wake_fd_ = -1;  // an eventfd: tells the relay to stop waiting for the end of the output
  std::atomic<bool> relay_done_{false};
  std::thread reader_;
};

}  // namespace ringboost::submit
