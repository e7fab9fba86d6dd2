#include "cli_runner.h"

#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "helpers.h"

namespace ringboost::test {

RunResult RunRingboost(const std::string& dir, const std::string& args) {
  std::string out_file = dir + "/.stdout", err_file = dir + "/.stderr";
  std::string cmd = "cd '" + dir + "' && '" + std::string(RINGBOOST_EXE) + "' " + args + " >'" +
                    out_file + "' 2>'" + err_file + "' </dev/null";
  int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFile(out_file);
  r.err = ReadFile(err_file);
  std::remove(out_file.c_str());
  std::remove(err_file.c_str());
  return r;
}

std::string WriteAgaricusSamplingConfig(const std::string& dir) {
  const std::string data = SharedDataDir() + "/agaricus/";
  return WriteFile(dir + "/a.conf",
                   "objective = binary:logistic\nmax_depth = 5\nnum_round = 4\n"
                   "subsample = 0.8\ncolsample_bynode = 0.8\nseed = 5\n"
                   "data = \"" +
                       data +
                       "agaricus.txt.train\"\n"
                       "eval[test] = \"" +
                       data + "agaricus.txt.test\"\n");
}

std::string WriteGeneratedDense(const std::string& path, int num_rows) {
  std::string rows;
  rows.reserve(static_cast<std::size_t>(num_rows) * 90);
  uint64_t state = 88172645463325252ull;
  auto next = [&state] {  // xorshift64: a fixed stream
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (int i = 0; i < num_rows; ++i) {
    double x[12];
    for (int f = 0; f < 12; ++f) x[f] = next() * 4 - 2;
    const double score =
        x[0] * x[1] - x[2] + 0.5 * x[3] * x[3] - (x[4] > 0.3 ? 1 : 0) + 0.3 * next();
    rows += score > 0 ? "1" : "0";
    char buf[32];
    for (int f = 0; f < 12; ++f) {
      std::snprintf(buf, sizeof(buf), " %d:%.4f", f, x[f]);
      rows += buf;
    }
    rows += "\n";
  }
  return WriteFile(path, rows);
}

}  // namespace ringboost::test
