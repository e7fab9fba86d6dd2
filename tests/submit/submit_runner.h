// Running ringboost-submit as a real executable from tests: in the foreground (within 120 s) or
// in the background, and reading its log as it grows.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "helpers.h"

namespace ringboost::submit::test {

struct Job {
  int exit_code = -1;
  std::string out, err;
};

inline int ExitCode(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// How many times `part` occurs in `text` (not overlapping).
inline int CountOf(const std::string& text, const std::string& part) {
  int n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) {
    ++n;
  }
  return n;
}

// Runs `ringboost-submit ARGS` in `dir` (a shell command line), within 120 s.
inline Job Submit(const std::string& dir, const std::string& args) {
  const std::string cmd = "cd '" + dir + "' && timeout 120 '" + RINGBOOST_SUBMIT + "' " + args +
                          " > submit.out 2> submit.err < /dev/null";
  Job job;
  job.exit_code = ExitCode(std::system(cmd.c_str()));
  job.out = ringboost::test::ReadFile(dir + "/submit.out");
  job.err = ringboost::test::ReadFile(dir + "/submit.err");
  return job;
}

// Starts ringboost-submit in the background (output in submit.out, submit.err); returns its pid.
inline pid_t SubmitInBackground(const std::string& dir, const std::string& args) {
  const std::string cmd = "cd '" + dir + "' && exec timeout 120 '" + RINGBOOST_SUBMIT + "' " +
                          args + " > submit.out 2> submit.err < /dev/null";
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Starts `argv` (argv[0] searched in PATH) in `dir` with no shell in between, stdin /dev/null,
// stdout and stderr to submit.out and submit.err there; returns its pid.
inline pid_t Spawn(const std::string& dir, std::vector<std::string> argv) {
  std::vector<char*> c_argv;
  for (std::string& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    const int in = open("/dev/null", O_RDONLY);
    const int out = open("submit.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open("submit.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    execvp(c_argv[0], c_argv.data());
    _exit(127);
  }
  return pid;
}

// pgrep's count of processes whose command line matches `pattern` (a regular expression).
inline int CountProcesses(const std::string& pattern) {
  const std::string cmd = "pgrep -f '" + pattern + "' | wc -l";
  FILE* p = popen(cmd.c_str(), "r");
  int n = -1;
  if (p != nullptr && std::fscanf(p, "%d", &n) != 1) n = -1;
  if (p != nullptr) pclose(p);
  return n;
}

// Waits (up to 20 s) until `path` contains `text`; returns the content.
inline std::string WaitForText(const std::string& path, const std::string& text) {
  std::string content;
  for (int i = 0; i < 400 && !Contains(content, text); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    content = ringboost::test::ReadFile(path);
  }
  return content;
}

// The tracker's port from ringboost-submit's log (-1 before it says).
inline int PortFromLog(const std::string& log) {
  const std::string key = "tracker on 127.0.0.1:";
  const auto at = log.find(key);
  return at == std::string::npos ? -1 : std::atoi(log.c_str() + at + key.size());
}

// d.txt: 300 rows of 4 features whose label follows the first two (a fixed pseudo-random walk,
// the same every run); d.conf: 3 rounds of depth 3 on one thread per worker.
inline void WriteTinyTrainingJob(const std::string& dir) {
  std::string rows;
  unsigned state = 12345;
  auto next = [&state] { return (state = state * 1103515245u + 12345u) >> 16 & 0x7fff; };
  for (int i = 0; i < 300; ++i) {
    const unsigned a = next() % 100, b = next() % 100, c = next() % 100, d = next() % 100;
    rows += std::to_string(a + b > 100 ? 1 : 0) + " 0:" + std::to_string(a) +
            " 1:" + std::to_string(b) + " 2:" + std::to_string(c) + " 3:" + std::to_string(d) +
            "\n";
  }
  ringboost::test::WriteFile(dir + "/d.txt", rows);
  ringboost::test::WriteFile(dir + "/d.conf",
                             "objective = binary:logistic\nnum_round = 3\nmax_depth = 3\n"
                             "nthread = 1\ndata = \"d.txt\"\n");
}

}  // namespace ringboost::submit::test
