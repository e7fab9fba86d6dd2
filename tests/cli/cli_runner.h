// Runs the built `ringboost` executable in a folder and captures what it printed.
#pragma once

#include <string>

namespace ringboost::test {

struct RunResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `ringboost <args>` with `dir` as the working directory (args are passed to the shell).
RunResult RunRingboost(const std::string& dir, const std::string& args);

// Writes dir/a.conf: binary:logistic on the shared agaricus set with row and column sampling
// (4 rounds), the config the multi-worker tests train with. Returns its path.
std::string WriteAgaricusSamplingConfig(const std::string& dir);

// Writes `rows` LibSVM rows of 12 dense features and a binary label from a fixed recipe (the
// same file every time, no shared data needed). Returns the path.
std::string WriteGeneratedDense(const std::string& path, int rows);

}  // namespace ringboost::test
