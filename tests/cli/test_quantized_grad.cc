// quantized_grad (low-bit gradients, issue 26) keeps the promise of every model: the same model
// file byte for byte and the same eval log for 1 and 2 threads and for 1, 2 and 3 workers
// (ringboost-submit, and mpirun where built); it is off by default. (device=cuda grows the same
// trees: test_device_training.cc.)
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

// `rows` LibSVM rows of 6 dense features (2 decimals in [0, 10)) and a binary label from a noisy
// linear score; the same on every machine.
void WriteBinarySet(const std::string& path, int rows) {
  std::ofstream out(path);
  uint64_t s = 5;
  auto unit = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) * 0x1p-53;
  };
  for (int i = 0; i < rows; ++i) {
    double f[6];
    for (double& v : f) v = std::round(unit() * 1000) / 100;
    const double z = 0.4 * f[0] - 0.3 * f[1] + 0.02 * f[2] * f[3] + 2 * (unit() - 0.5);
    out << (z > 0.6 ? 1 : 0);
    for (int j = 0; j < 6; ++j) out << ' ' << j << ':' << f[j];
    out << '\n';
  }
}

// 6,000 rows: the root's histogram has 32-bit cells (6,000 x 7 > 32,767), the deeper ones
// 16-bit; on the wire both are int32.
class QuantizedGrad : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteBinarySet(dir_.File("train.txt"), 6000);
    test::WriteFile(dir_.File("c.conf"),
                    "objective = binary:logistic\neval_metric = auc\nmax_depth = 5\n"
                    "num_round = 4\ndata = \"train.txt\"\neval[train] = \"train.txt\"\n");
  }
  // Trains one process with `args`; returns the eval log and fills *model with the model file.
  std::string Train(const std::string& args, std::string* model) {
    const test::RunResult r =
        test::RunRingboost(dir_.path(), "train c.conf model_out=m.json " + args);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
    *model = test::ReadFile(dir_.File("m.json"));
    return test::EvalLog(r.out);
  }
  test::TempDir dir_;
};

TEST_F(QuantizedGrad, SameModelForThreadsAndWorkers) {
  test::ExpectSameModelForThreadsAndWorkers(dir_.path(), "train c.conf quantized_grad=on");
}

// Off is the default and the exact trainer; on grows other trees whose training AUC stays
// within 0.01 of the exact one's (4 rounds of depth 5).
TEST_F(QuantizedGrad, OffByDefaultOnCloseToExact) {
  std::string exact, off, on;
  const std::string log_exact = Train("", &exact);
  EXPECT_EQ(Train("quantized_grad=off", &off), log_exact);
  EXPECT_EQ(off, exact);
  const std::string log_on = Train("quantized_grad=on", &on);
  EXPECT_NE(on, exact);
  auto last_auc = [](const std::string& log) {
    return std::stod(log.substr(log.rfind("train-auc:") + 10));
  };
  EXPECT_NEAR(last_auc(log_on), last_auc(log_exact), 0.01) << log_on << log_exact;
  EXPECT_GT(last_auc(log_exact), 0.8) << log_exact;
}

}  // namespace
}  // namespace ringboost
