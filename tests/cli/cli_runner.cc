#include "cli_runner.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "helpers.h"

namespace ringboost::test {

namespace {

// xorshift64 from a fixed seed: the same stream of numbers in [0, 1) every time.
class FixedStream {
 public:
  double Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return static_cast<double>(state_ >> 11) / 9007199254740992.0;
  }

 private:
  uint64_t state_ = 88172645463325252ull;
};

void AppendFeature(int id, double value, std::string* row) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), " %d:%.4f", id, value);
  *row += buf;
}

}  // namespace

RunResult RunInDir(const std::string& dir, const std::string& command) {
  std::string out_file = dir + "/.stdout", err_file = dir + "/.stderr";
  std::string cmd =
      "cd '" + dir + "' && " + command + " >'" + out_file + "' 2>'" + err_file + "' </dev/null";
  int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFile(out_file);
  r.err = ReadFile(err_file);
  std::remove(out_file.c_str());
  std::remove(err_file.c_str());
  return r;
}

RunResult RunRingboost(const std::string& dir, const std::string& args) {
  return RunInDir(dir, "'" + std::string(RINGBOOST_EXE) + "' " + args);
}

RunResult RunSubmit(const std::string& dir, int num_workers, const std::string& args,
                    const std::string& submit_flags) {
  return RunInDir(dir, "timeout 300 '" + std::string(RINGBOOST_SUBMIT) +
                           "' --cluster local --num-workers " + std::to_string(num_workers) + " " +
                           submit_flags + " '" + RINGBOOST_EXE + "' " + args);
}

RunResult RunWith(const std::string& dir, const std::string& launcher, int n,
                  const std::string& args) {
  if (launcher == "ringboost-submit") return RunSubmit(dir, n, args);
#if defined(RINGBOOST_MPIEXEC)
  if (launcher == "mpirun") {
    return RunInDir(
        dir, "timeout 300 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                 std::string(RINGBOOST_MPIEXEC) + " --oversubscribe -np " + std::to_string(n) +
                 " '" + RINGBOOST_EXE + "' " + args);
  }
#endif
  if (launcher != "ringboost") throw std::invalid_argument("no launcher " + launcher);
  return RunRingboost(dir, args);
}

std::vector<std::string> WorkerLaunchers() {
#if defined(RINGBOOST_MPIEXEC)
  return {"ringboost-submit", "mpirun"};
#else
  return {"ringboost-submit"};
#endif
}

std::string ExpectSameModelForThreadsAndWorkers(const std::string& dir, const std::string& args) {
  // Trains into `out`; returns the eval log.
  const auto train = [&](const std::string& launcher, int n, const std::string& more,
                         const std::string& out) {
    const RunResult r = RunWith(dir, launcher, n, args + " " + more + " model_out=" + out);
    EXPECT_EQ(r.exit_code, 0) << launcher << " with " << n << ": " << r.err;
    return EvalLog(r.out);
  };
  const std::string log1 = train("ringboost", 1, "nthread=1", "t1.json");
  const std::string model = ReadFile(dir + "/t1.json");
  EXPECT_FALSE(model.empty()) << args;
  EXPECT_FALSE(log1.empty()) << args;
  EXPECT_EQ(train("ringboost", 1, "nthread=2", "t2.json"), log1) << "2 threads";
  EXPECT_EQ(ReadFile(dir + "/t2.json"), model) << "2 threads";
  for (const std::string& launcher : WorkerLaunchers()) {
    for (int n : {2, 3}) {
      const std::string out = "w" + std::to_string(n) + ".json";
      EXPECT_EQ(train(launcher, n, "nthread=1", out), log1) << launcher << " with " << n;
      EXPECT_EQ(ReadFile(dir + "/" + out), model) << launcher << " with " << n;
    }
  }
  return model;
}

std::string EvalLog(const std::string& out) {
  std::istringstream lines(out);
  std::string line, log;
  while (std::getline(lines, line)) {
    const std::string prefix = "[rank 0] ";
    if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
    if (line.size() > 1 && line[0] == '[' && line.find("]\t") != std::string::npos) {
      log += line + "\n";
    }
  }
  return log;
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

// LightGBM's TSV files are named without `?format=csv`: the format detection reads them as CSV
// with the label in column 0, where an explicit format=csv without label_column=0 would (as
// dmlc-core does) take every column as a feature and every label as 0.
const std::vector<SharedSet>& SharedSets() {
  static const std::vector<SharedSet> sets = {
      {"agaricus",
       "objective = binary:logistic\neval_metric = error\neval_metric = logloss\n"
       "subsample = 0.8\ncolsample_bynode = 0.8\nmax_depth = 5\n",
       "agaricus/agaricus.txt.train", "agaricus/agaricus.txt.test"},
      {"lightgbm_binary",
       "objective = binary:logistic\neval_metric = auc\neval_metric = logloss\n"
       "subsample = 0.8\nmax_depth = 6\n",
       "lightgbm/binary.train", "lightgbm/binary.test"},
      {"lightgbm_multiclass",
       "objective = multi:softprob\nnum_class = 5\neval_metric = mlogloss\n"
       "eval_metric = merror\ncolsample_bytree = 0.8\n",
       "lightgbm/multiclass.train", "lightgbm/multiclass.test"},
      {"lightgbm_rank",
       "objective = rank:ndcg\neval_metric = ndcg@5\neval_metric = ndcg@3-\nsubsample = 0.9\n",
       "lightgbm/rank.train", "lightgbm/rank.test"},
  };
  return sets;
}

const SharedSet& FindSharedSet(const std::string& name) {
  for (const SharedSet& set : SharedSets()) {
    if (name == set.name) return set;
  }
  throw std::invalid_argument("no shared set named " + name);
}

void WriteBinarisedRankSet(const std::string& dir) {
  for (const std::string name : {"train", "test"}) {
    const std::string src = SharedDataDir() + "/lightgbm/rank." + name;
    std::istringstream in(ReadFile(src));
    std::string out;
    for (std::string line; std::getline(in, line);) {
      const std::size_t space = line.find(' ');
      out += (std::stod(line.substr(0, space)) > 0 ? "1" : "0") + line.substr(space) + "\n";
    }
    WriteFile(dir + "/" + name + ".txt", out);
    WriteFile(dir + "/" + name + ".txt.query", ReadFile(src + ".query"));
  }
}

std::string WriteSharedSetConfig(const std::string& dir, const SharedSet& set, int num_round) {
  const std::string data = SharedDataDir() + "/";
  return WriteFile(dir + "/c.conf", std::string(set.config) +
                                        "num_round = " + std::to_string(num_round) + "\ndata = \"" +
                                        data + set.train + "\"\neval[test] = \"" + data + set.test +
                                        "\"\ntest:data = \"" + data + set.test + "\"\n");
}

std::string WriteGeneratedDense(const std::string& path, int num_rows, GeneratedLabel label) {
  std::string rows;
  rows.reserve(static_cast<std::size_t>(num_rows) * 90);
  FixedStream random;
  for (int i = 0; i < num_rows; ++i) {
    double x[12];
    for (int f = 0; f < 12; ++f) x[f] = random.Next() * 4 - 2;
    const double score =
        x[0] * x[1] - x[2] + 0.5 * x[3] * x[3] - (x[4] > 0.3 ? 1 : 0) + 0.3 * random.Next();
    switch (label) {
      case GeneratedLabel::kBinary:
        rows += score > 0 ? "1" : "0";
        break;
      case GeneratedLabel::kReal:
        rows += std::to_string(score);
        break;
      case GeneratedLabel::kPositive:
        rows += std::to_string(std::exp(score / 4));
        break;
      case GeneratedLabel::kSurvival: {
        const double time = std::round(std::exp(score / 4) * 20) + 1;
        rows += std::to_string(i % 4 == 0 ? -time : time);
        break;
      }
    }
    for (int f = 0; f < 12; ++f) AppendFeature(f, x[f], &rows);
    rows += "\n";
  }
  return WriteFile(path, rows);
}

std::string WriteGeneratedSparse(const std::string& path, int num_rows, int num_features,
                                 double missing) {
  std::string rows, row;
  rows.reserve(static_cast<std::size_t>(num_rows) * num_features * 8);
  FixedStream random;
  for (int i = 0; i < num_rows; ++i) {
    row.clear();
    double x[6] = {0, 0, 0, 0, 0, 0};
    bool x5_missing = false;
    for (int f = 0; f < num_features; ++f) {
      const bool absent = random.Next() < missing;
      const double value = random.Next() * 4 - 2;
      if (f == 5) x5_missing = absent;
      if (absent) continue;
      if (f < 6) x[f] = value;
      AppendFeature(f, value, &row);
    }
    const double score = x[0] * x[1] - x[2] + 0.5 * x[3] * x[3] - (x[4] > 0.3 ? 1 : 0) +
                         (x5_missing ? 0.8 : x[5]) + 0.3 * random.Next() - 0.5;
    rows += (score > 0 ? "1" : "0") + row + "\n";
  }
  return WriteFile(path, rows);
}

std::string WriteOneHotSet(const std::string& path, int rows, double conflicts) {
  std::ostringstream out;
  uint64_t s = 11;
  auto unit = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) * 0x1p-53;
  };
  for (int i = 0; i < rows; ++i) {
    std::vector<std::pair<int, int>> row;  // (feature, value)
    double z = 2 * (unit() - 0.5);
    for (int b = 0; b < kOneHotBlocks; ++b) {
      if (unit() < 0.25) continue;
      const int m = static_cast<int>(unit() * kOneHotWidth);
      const int v = static_cast<int>(unit() * (b == 0 ? 6 : 10));
      row.push_back({b * kOneHotWidth + m, v});
      if (b == 0) z += (v % 2 == 0 ? 1.5 : -1.0);
      if (b == 1) z += (m < 7 ? 0.3 : -0.3) * v;
      if (b == 2 || b == 3) z += (m % 3 == 0 ? 1.0 : -0.4);
      if (unit() < conflicts) {
        const int other = (m + 1 + static_cast<int>(unit() * (kOneHotWidth - 1))) % kOneHotWidth;
        row.push_back({b * kOneHotWidth + other, static_cast<int>(unit() * 10)});
      }
    }
    std::sort(row.begin(), row.end());
    out << (z > 0 ? 1 : 0);
    for (const auto& [f, v] : row) out << ' ' << f << ':' << v;
    out << '\n';
  }
  return WriteFile(path, out.str());
}

}  // namespace ringboost::test
