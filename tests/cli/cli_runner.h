// Runs the built `ringboost` executable (alone or under ringboost-submit) in a folder and
// captures what it printed; writes the configs and generated data sets the CLI tests share.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ringboost::test {

struct RunResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the shell command line `command` with `dir` as the working directory.
RunResult RunInDir(const std::string& dir, const std::string& command);

// Runs `ringboost <args>` with `dir` as the working directory (args are passed to the shell).
RunResult RunRingboost(const std::string& dir, const std::string& args);

// Runs `ringboost-submit --cluster local --num-workers N ringboost <args>` in `dir`, within
// 300 s. The workers' output comes back prefixed with their rank ("[rank 0] ...").
// submit_flags: more ringboost-submit options (before the program).
RunResult RunSubmit(const std::string& dir, int num_workers, const std::string& args,
                    const std::string& submit_flags = "");

// Runs `ringboost <args>` in `dir` with `launcher`: "ringboost" (one process), "ringboost-submit"
// or "mpirun" (n workers; mpirun within 300 s, where the tests were built with MPI).
RunResult RunWith(const std::string& dir, const std::string& launcher, int n,
                  const std::string& args);
// The launchers of several workers this build of the tests has: ringboost-submit, and mpirun
// where they were built with MPI.
std::vector<std::string> WorkerLaunchers();
// The promise of every model: trains `args` ("train CONF key=value ...", without nthread and
// model_out) in `dir` with 1 and 2 threads, and with 2 and 3 workers of 1 thread under each of
// WorkerLaunchers(); every run must succeed and write the model file and the eval log of the
// first (which must not be empty). Returns that model file's bytes.
std::string ExpectSameModelForThreadsAndWorkers(const std::string& dir, const std::string& args);

// The eval log lines ("[i]\t...") of a run's stdout, without ringboost-submit's "[rank 0] ".
std::string EvalLog(const std::string& out);

// Writes dir/a.conf: binary:logistic on the shared agaricus set with row and column sampling
// (4 rounds), the config the multi-worker tests train with. Returns its path.
std::string WriteAgaricusSamplingConfig(const std::string& dir);

// A shared data set with the objective, metrics and options the CLI tests train it with.
struct SharedSet {
  const char* name;
  const char* config;  // `key = value` lines, without rounds and data
  const char* train;   // relative to SharedDataDir(); side files (.weight, .query) beside it
  const char* test;
};
// agaricus, lightgbm_binary (weighted), lightgbm_multiclass and lightgbm_rank (rank:ndcg).
const std::vector<SharedSet>& SharedSets();
// The set of that name; throws std::invalid_argument (a bug in the test) when there is none.
const SharedSet& FindSharedSet(const std::string& name);
// Writes dir/c.conf: the set's config, `num_round`, its train file as data, and its test file as
// eval[test] and test:data. Returns its path.
std::string WriteSharedSetConfig(const std::string& dir, const SharedSet& set, int num_round);
// gtest prints a parameter by its name.
inline void PrintTo(const SharedSet& set, std::ostream* os) { *os << set.name; }
// Writes dir/NAME.txt and its .query for NAME = train and test: the shared LibSVM files
// lightgbm/rank.NAME with each label l as 1 if l > 0 else 0 (binary relevance, as XGBoost 3.x's
// rank:map and map require).
void WriteBinarisedRankSet(const std::string& dir);

// The label WriteGeneratedDense writes from a row's score s (a real number, mostly in [-4, 6]):
// kBinary 1 when s > 0 else 0; kReal s itself; kPositive exp(s / 4), above 0; kSurvival a time
// round(exp(s / 4) * 20) + 1, negative (right-censored) for every fourth row.
enum class GeneratedLabel { kBinary, kReal, kPositive, kSurvival };

// Writes `rows` LibSVM rows of 12 dense features and a label of the kind from a fixed recipe (the
// same file every time, no shared data needed). Returns the path.
std::string WriteGeneratedDense(const std::string& path, int rows,
                                GeneratedLabel label = GeneratedLabel::kBinary);

// Writes `rows` LibSVM rows of `num_features` features (at least 6), each missing (not written)
// with probability `missing`, and a binary label that the first six and their missingness
// decide, from a fixed recipe. Returns the path.
std::string WriteGeneratedSparse(const std::string& path, int rows, int num_features,
                                 double missing);

// Writes `rows` LibSVM rows of kOneHotBlocks one-hot blocks of kOneHotWidth features (600
// features): a block is absent (missing) in a quarter of the rows, else one member holds an
// integer 0..9 (block 0: a category code 0..5). With `conflicts`, a block holds a second member in
// that share of rows. The label comes from blocks 0-3 and noise; the same file on every machine
// (the feature bundles' set). Returns the path.
constexpr int kOneHotBlocks = 40, kOneHotWidth = 15;
std::string WriteOneHotSet(const std::string& path, int rows, double conflicts);

}  // namespace ringboost::test
