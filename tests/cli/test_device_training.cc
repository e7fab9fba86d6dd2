// device=cuda against device=cpu: the same model file, eval log and predictions (the CUDA
// issue's parity). Skips with a message where there is no CUDA device (or no CUDA build).
#include <gtest/gtest.h>

#include <string>

#include "cli_runner.h"
#include "helpers.h"
#include "tree/device_common.h"

namespace ringboost {
namespace {

#define RB_REQUIRE_CUDA_DEVICE()                    \
  do {                                              \
    std::string reason;                             \
    if (DeviceCount(&reason) == 0) {                \
      GTEST_SKIP() << "no CUDA device: " << reason; \
    }                                               \
  } while (0)

// Trains `conf` in `dir` on the CPU and on the GPU; both runs must agree byte for byte.
void ExpectSameOnBoth(const std::string& dir, const std::string& conf) {
  test::RunResult cpu = test::RunRingboost(dir, "train " + conf + " device=cpu model_out=cpu.json");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  test::RunResult gpu =
      test::RunRingboost(dir, "train " + conf + " device=cuda model_out=cuda.json");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_EQ(cpu.out.substr(0, cpu.out.find("[ringboost]")),
            gpu.out.substr(0, gpu.out.find("[ringboost]")));  // the eval log
  EXPECT_EQ(test::ReadFile(dir + "/cpu.json"), test::ReadFile(dir + "/cuda.json"));
  for (const char* device : {"cpu", "cuda"}) {
    test::RunResult pred = test::RunRingboost(dir, std::string("predict ") + conf +
                                                       " model_in=cpu.json device=" + device +
                                                       " name_pred=pred_" + device + ".txt");
    ASSERT_EQ(pred.exit_code, 0) << pred.err;
  }
  EXPECT_EQ(test::ReadFile(dir + "/pred_cpu.txt"), test::ReadFile(dir + "/pred_cuda.txt"));
}

TEST(DeviceTraining, AgaricusModelIsTheCpuModel) {
  RB_REQUIRE_CUDA_DEVICE();
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  const std::string conf = test::WriteAgaricusSamplingConfig(dir.path());
  ExpectSameOnBoth(dir.path(),
                   conf + " test:data=" + test::SharedDataDir() + "/agaricus/agaricus.txt.test");
}

TEST(DeviceTraining, GeneratedDenseModelIsTheCpuModel) {
  RB_REQUIRE_CUDA_DEVICE();
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 200000);
  test::WriteFile(dir.File("c.conf"),
                  "objective = binary:logistic\neval_metric = auc\nmax_depth = 8\n"
                  "num_round = 5\nsubsample = 0.9\ndata = \"train.txt\"\n"
                  "eval[train] = \"train.txt\"\ntest:data = \"train.txt\"\n");
  ExpectSameOnBoth(dir.path(), "c.conf");
}

}  // namespace
}  // namespace ringboost
