// Child processes for the launchers: started with extra environment variables, their stdout and
// stderr read line by line (for the rank prefix), ended with SIGTERM then SIGKILL, and never
// left behind: each child dies with ringboost-submit (PR_SET_PDEATHSIG) and gets its own
// process group, which Terminate() signals whole.
#pragma once

#include <sys/types.h>

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
  ~ChildProcess();  // ends the child if it still runs, joins the reader

  pid_t pid() const { return pid_; }
  // Non-blocking: true once the child has ended; *exit_code is its code, or 128 + signal.
  bool Poll(int* exit_code);
  // Blocks until it ends.
  int Wait();
  // SIGTERM to the child's process group, SIGKILL after `grace_s`; waits for it.
  void Terminate(double grace_s = 3);
  // "exit code 3" or "killed by signal 9 (Killed)".
  static std::string Describe(int exit_code);

 private:
  ChildProcess() = default;
  pid_t pid_ = -1;
  bool ended_ = false;
  int exit_code_ = 0;
  std::thread reader_;
};

}  // namespace ringboost::submit
