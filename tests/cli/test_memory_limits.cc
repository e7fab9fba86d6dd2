// Absurd sizes under a process memory limit (issue 24, item 7): the real executable, run under
// `prlimit --as` (RLIMIT_AS) or RINGBOOST_MEMORY_LIMIT_MB, refuses each request that cannot fit
// before allocating it, with a clear error naming what needs the memory and how much: exit 1, no
// output file, never a std::bad_alloc, SIGABRT or the OpenMP runtime's own abort.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

constexpr const char* kOneGiB = "prlimit --as=1073741824 ";

struct Refusal {
  std::string err;
  int exit_code;
};

// Runs `ringboost <args>` in dir under `limit` (a command prefix); the output file must not exist.
Refusal RunLimited(const test::TempDir& dir, const std::string& limit, const std::string& args,
                   const std::string& output) {
  const test::RunResult r = test::RunInDir(
      dir.path(), limit + "timeout -k 5 120 '" + std::string(RINGBOOST_EXE) + "' " + args);
  EXPECT_FALSE(std::filesystem::exists(dir.File(output))) << output << " was written";
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  return {r.err, r.exit_code};
}

class MemoryLimits : public ::testing::Test {
 protected:
  void SetUp() override {
    test::WriteGeneratedDense(dir_.File("train.txt"), 20);
    test::WriteFile(dir_.File("c.conf"),
                    "objective = binary:logistic\nnum_round = 2\n"
                    "data = train.txt\nmodel_out = m.model\n");
  }
  test::TempDir dir_;
};

TEST_F(MemoryLimits, HundredMillionClassesNameTheTrainingState) {
  const Refusal r = RunLimited(
      dir_, kOneGiB, "train c.conf objective=multi:softmax num_class=100000000", "m.model");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("the training state needs 52.2 GiB (20 rows x 100000000 output groups x "
                       "28 bytes of margin and gradients), more than the "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(RLIMIT_AS); lower num_class"), std::string::npos) << r.err;
}

TEST_F(MemoryLimits, ThreadStacksBeyondTheLimitNameNthread) {
  for (const char* task :
       {"train c.conf", "predict c.conf model_in=none.json test:data=train.txt"}) {
    const Refusal r = RunLimited(dir_, std::string(kOneGiB) + "env OMP_STACKSIZE=8M ",
                                 std::string(task) + " nthread=1024 name_pred=p.txt", "m.model");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("nthread=1024 needs 8.0 GiB (1024 thread stacks x 8.0 MiB"),
              std::string::npos)
        << task << ": " << r.err;
  }
}

TEST_F(MemoryLimits, InteractionsOfAWideModelNameTheirSize) {
  // A model over 100,000 features: 100001^2 values a row for each of the 20 rows.
  ASSERT_EQ(test::RunRingboost(dir_.path(), "train c.conf").exit_code, 0);
  std::string model = test::ReadFile(dir_.File("m.model"));
  const std::string key = "\"num_feature\":";
  const std::size_t at = model.find(key);
  ASSERT_NE(at, std::string::npos);
  model.replace(at + key.size(), model.find_first_of(",}", at) - at - key.size(), "100000");
  test::WriteFile(dir_.File("wide.json"), model);
  const Refusal r =
      RunLimited(dir_, kOneGiB,
                 "predict c.conf model_in=wide.json test:data=train.txt pred_interactions=1 "
                 "name_pred=p.txt",
                 "p.txt");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("pred_interactions needs 745.1 GiB (20 rows x 10000200001 values a row x 4 "
                       "bytes)"),
            std::string::npos)
      << r.err;
}

TEST_F(MemoryLimits, DataBeyondTheLimitNamesTheFileAndItsShape) {
  test::WriteGeneratedDense(dir_.File("big.txt"), 20000);
  const Refusal r = RunLimited(dir_, "env RINGBOOST_MEMORY_LIMIT_MB=1 OMP_STACKSIZE=64K ",
                               "train c.conf data=big.txt nthread=1", "m.model");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(
      r.err.find("the data of big.txt needs 2.4 MiB (up to 20001 rows x 28 bytes + 240000 entries "
                 "x 8 bytes), more than the 1.0 MiB this process has left "
                 "(RINGBOOST_MEMORY_LIMIT_MB)"),
      std::string::npos)
      << r.err;
}

// Memory follows the data: absurd limits that ask for nothing up front still train.
TEST_F(MemoryLimits, LimitsThatAskForNothingUpFrontStillTrain) {
  const test::RunResult r = test::RunInDir(
      dir_.path(), std::string(kOneGiB) + "'" + RINGBOOST_EXE +
                       "' train c.conf max_bin=65536 grow_policy=lossguide max_depth=0 "
                       "max_leaves=2147483647");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace ringboost
