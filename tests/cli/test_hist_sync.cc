// hist_sync (issue 29): reduce_scatter (each worker sums and evaluates its block of features, the
// workers agree on the best split by an allgather) writes the model allreduce writes, byte for
// byte, for 1-2 threads and 1-3 and 8 workers, under every option that reads histograms; the
// training log tells the bytes each worker sent; device=cuda refuses it by name.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "helpers.h"
#include "require_device.h"

namespace ringboost {
namespace {

struct SyncCase {
  const char* name;
  const char* config;  // `key = value` lines besides the data
  bool sparse;         // generated sparse rows (12 features, 20% missing), else dense
};
void PrintTo(const SyncCase& c, std::ostream* os) { *os << c.name; }

class HistSync : public ::testing::TestWithParam<SyncCase> {};

TEST_P(HistSync, ReduceScatterKeepsThePromiseAndIsTheAllreduceModel) {
  const SyncCase& c = GetParam();
  test::TempDir dir;
  if (c.sparse) {
    test::WriteGeneratedSparse(dir.File("train.txt"), 2000, 12, 0.2);
  } else {
    test::WriteGeneratedDense(dir.File("train.txt"), 2000);
  }
  test::WriteFile(dir.File("c.conf"), std::string(c.config) +
                                          "num_round = 3\ndata = \"train.txt\"\n"
                                          "eval[train] = \"train.txt\"\n");
  const std::string model = test::ExpectSameModelForThreadsAndWorkers(
      dir.path(), "train c.conf hist_sync=reduce_scatter");
  for (const std::string& launcher : test::WorkerLaunchers()) {
    const test::RunResult r = test::RunWith(dir.path(), launcher, 3,
                                            "train c.conf nthread=1 hist_sync=allreduce "
                                            "model_out=a3.json");
    EXPECT_EQ(r.exit_code, 0) << launcher << ": " << r.err;
    EXPECT_EQ(test::ReadFile(dir.File("a3.json")), model) << launcher;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Options, HistSync,
    ::testing::Values(
        SyncCase{"sampling_lossguide",
                 "objective = binary:logistic\nsubsample = 0.8\ncolsample_bytree = 0.9\n"
                 "colsample_bylevel = 0.9\ncolsample_bynode = 0.8\ngrow_policy = lossguide\n"
                 "max_leaves = 12\nmax_depth = 0\n",
                 true},
        SyncCase{"multiclass_quantized",
                 "objective = multi:softprob\nnum_class = 3\nquantized_grad = on\n"
                 "max_depth = 5\n",
                 false},
        SyncCase{"constraints",
                 "objective = binary:logistic\nmax_depth = 4\n"
                 "monotone_constraints = (1,-1,0,1)\n"
                 "interaction_constraints = [[0,1,3],[2,3,4,5],[6,7,8,9,10,11]]\n",
                 true}),
    [](const ::testing::TestParamInfo<SyncCase>& info) { return std::string(info.param.name); });

// Writes dir/c.conf over a generated sparse set of 1600 rows and `features` features (3 rounds of
// depth 4) and trains it in one process: *model is that model file.
void WriteSmallJob(const test::TempDir& dir, int features, std::string* model) {
  test::WriteGeneratedSparse(dir.File("train.txt"), 1600, features, 0.1);
  test::WriteFile(dir.File("c.conf"),
                  "objective = binary:logistic\nmax_depth = 4\nnum_round = 3\n"
                  "data = \"train.txt\"\n");
  const test::RunResult one = test::RunRingboost(dir.path(), "train c.conf model_out=one.json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  *model = test::ReadFile(dir.File("one.json"));
  ASSERT_FALSE(model->empty());
}

// 8 workers on 6 features: some own no feature (their blocks are empty); the model is one
// process's under every launcher.
TEST(HistSyncWorkers, EightWorkersOnSixFeatures) {
  test::TempDir dir;
  std::string model;
  ASSERT_NO_FATAL_FAILURE(WriteSmallJob(dir, 6, &model));
  for (const std::string& launcher : test::WorkerLaunchers()) {
    const test::RunResult r =
        test::RunWith(dir.path(), launcher, 8,
                      "train c.conf nthread=1 hist_sync=reduce_scatter model_out=8.json");
    EXPECT_EQ(r.exit_code, 0) << launcher << ": " << r.err;
    EXPECT_EQ(test::ReadFile(dir.File("8.json")), model) << launcher;
  }
}

// Recursive halving and doubling (rabit_algorithm=halving: every integer allreduce, the
// histograms' reduce-scatter and the candidates' allgather over the hypercube, the extra ranks
// folded in at 3, 5, 6, 7) under ringboost-submit: the model is one process's for either
// hist_sync.
class HistSyncHalving : public ::testing::TestWithParam<int> {};

TEST_P(HistSyncHalving, ModelIsOneProcesss) {
  const int n = GetParam();
  test::TempDir dir;
  std::string model;
  ASSERT_NO_FATAL_FAILURE(WriteSmallJob(dir, 12, &model));
  for (const char* mode : {"reduce_scatter", "allreduce"}) {
    const test::RunResult r = test::RunSubmit(
        dir.path(), n,
        std::string("train c.conf nthread=1 rabit_algorithm=halving model_out=h.json hist_sync=") +
            mode,
        "--hypercube");
    EXPECT_EQ(r.exit_code, 0) << mode << ": " << r.err;
    EXPECT_EQ(test::ReadFile(dir.File("h.json")), model) << mode;
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, HistSyncHalving, ::testing::Values(3, 5, 6, 7));

struct CollectiveLine {
  double payload = 0, sent = 0;
};

// Each rank's `collective in training: C calls, P bytes per round, S bytes sent per worker per
// round` line.
std::vector<CollectiveLine> CollectiveLines(const std::string& text) {
  static const std::regex line(
      "collective in training: \\d+ calls, (\\d+) bytes per round, (\\d+) bytes sent per "
      "worker per round");
  std::vector<CollectiveLine> out;
  for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it) {
    out.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  }
  return out;
}

// With every allreduce on the ring (rabit_reduce_ring_mincount=1; calls of fewer elements than
// workers still take the tree), each worker sends 2 (N-1)/N of the payload; with reduce_scatter
// (N-1)/N of it (the histograms' blocks but one's own; the candidates' allgather sends each
// worker's candidates to the N-1 others, a few hundred bytes). Within 3% of those.
// At 4 workers halving and doubling (rabit_algorithm=halving) send the same: at a power of two
// a rank sends every block but its own in halving and (P-1)/P of the buffer in doubling.
class HistSyncLog : public ::testing::TestWithParam<const char*> {};

TEST_P(HistSyncLog, BytesSentPerWorkerFollowTheRing) {
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 3000);
  const bool halving = std::string(GetParam()) == "halving";
  test::WriteFile(dir.File("c.conf"),
                  std::string("objective = binary:logistic\nmax_depth = 5\nnum_round = 2\n"
                              "data = \"train.txt\"\nverbosity = 3\n"
                              "rabit_reduce_ring_mincount = 1\nrabit_algorithm = ") +
                      GetParam() + "\n");
  const int n = halving ? 4 : 3;
  double allreduce_sent = 0;
  for (const char* mode : {"allreduce", "reduce_scatter"}) {
    const test::RunResult r = test::RunSubmit(
        dir.path(), n, std::string("train c.conf nthread=1 model_out=m.json hist_sync=") + mode,
        halving ? "--hypercube" : "");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<CollectiveLine> lines = CollectiveLines(r.out + r.err);
    ASSERT_EQ(lines.size(), static_cast<std::size_t>(n)) << r.out << r.err;
    const double share = std::string(mode) == "allreduce" ? 2.0 * (n - 1) / n : 1.0 * (n - 1) / n;
    for (const CollectiveLine& l : lines) {
      EXPECT_NEAR(l.sent, share * l.payload, 0.03 * share * l.payload) << mode;
      if (std::string(mode) == "allreduce") allreduce_sent = l.sent;
    }
    if (std::string(mode) == "reduce_scatter") {
      EXPECT_LT(lines[0].sent, 0.55 * allreduce_sent);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, HistSyncLog, ::testing::Values("auto", "halving"));

// device=cuda, 2 tcp workers sharing the GPU: both modes write the one-process CPU model and its
// eval log byte for byte, and reduce_scatter sends about half of allreduce's bytes, as on the CPU
// (HistSyncLog); with exact and low-bit gradients (whose histograms travel in narrow cells).
TEST(HistSyncCuda, DeviceWorkersScatterAndWriteTheCpuModel) {
  RB_REQUIRE_DEVICE();
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 200000);
  test::WriteFile(dir.File("c.conf"),
                  "objective = binary:logistic\nmax_depth = 8\nnum_round = 4\n"
                  "data = \"train.txt\"\neval[train] = \"train.txt\"\nverbosity = 3\n"
                  "rabit_reduce_ring_mincount = 1\n");
  for (const char* grad : {"off", "on"}) {
    const std::string args = std::string("train c.conf quantized_grad=") + grad;
    const test::RunResult cpu = test::RunRingboost(dir.path(), args + " model_out=cpu.json");
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    ASSERT_FALSE(test::EvalLog(cpu.out).empty()) << cpu.out;
    std::vector<double> sent;
    for (const char* mode : {"allreduce", "reduce_scatter"}) {
      const test::RunResult r =
          test::RunSubmit(dir.path(), 2, args + " device=cuda model_out=g.json hist_sync=" + mode);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(test::EvalLog(r.out), test::EvalLog(cpu.out)) << grad << " " << mode;
      EXPECT_TRUE(test::ReadFile(dir.File("g.json")) == test::ReadFile(dir.File("cpu.json")))
          << grad << " " << mode;
      const std::vector<CollectiveLine> lines = CollectiveLines(r.out + r.err);
      ASSERT_EQ(lines.size(), 2u) << r.out << r.err;
      sent.push_back(lines[0].sent);
    }
    EXPECT_LT(sent[1], 0.55 * sent[0]) << grad;
  }
}

}  // namespace
}  // namespace ringboost
