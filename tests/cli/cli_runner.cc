#include "cli_runner.h"

#include <sys/wait.h>

#include <cstdlib>

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

}  // namespace ringboost::test
