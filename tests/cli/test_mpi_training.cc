// Training under mpirun: 2 and 3 workers, each reading its share of the rows, write the same
// model file byte for byte as one process (cuts, gradient scale, histograms, row counts and
// metrics agreed through the mpi communicator; random draws keyed by global row and group ids).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

#if defined(RINGBOOST_MPIEXEC)
int RunUnderMpirun(const std::string& dir, int np, const std::string& args) {
  std::string cmd =
      "cd '" + dir + "' && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
      "timeout 120 " + RINGBOOST_MPIEXEC + " --oversubscribe -np " + std::to_string(np) + " '" +
      RINGBOOST_EXE + "' " + args + " > mpi.out 2>&1 </dev/null";
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Trains with 1 process and with 2 and 3 workers; the model files must be equal.
void ExpectSameModel(const std::string& dir, const std::string& args) {
  ASSERT_EQ(test::RunRingboost(dir, args + " model_out=m1.json").exit_code, 0);
  const std::string one = test::ReadFile(dir + "/m1.json");
  ASSERT_FALSE(one.empty());
  for (int np : {2, 3}) {
    const std::string out = "m" + std::to_string(np) + ".json";
    ASSERT_EQ(RunUnderMpirun(dir, np, args + " verbosity=2 model_out=" + out), 0)
        << test::ReadFile(dir + "/mpi.out");
    // Really distributed: every rank says so (each reads only its share of the rows).
    const std::string log = test::ReadFile(dir + "/mpi.out");
    for (int r = 0; r < np; ++r) {
      const std::string line =
          "communicator mpi: rank " + std::to_string(r) + " of " + std::to_string(np);
      EXPECT_NE(log.find(line), std::string::npos) << log;
    }
    EXPECT_EQ(test::ReadFile(dir + "/" + out), one) << np << " workers";
  }
}

TEST(MpiTraining, AgaricusWithSamplingSameModelForOneTwoThreeWorkers) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteAgaricusSamplingConfig(dir.path());
  ExpectSameModel(dir.path(), "train a.conf");
}

TEST(MpiTraining, WeightedMulticlassSameModelForOneTwoThreeWorkers) {
  test::TempDir dir;
  std::string rows, weights;
  for (int i = 0; i < 300; ++i) {
    const int label = (i * 7) % 3;
    rows += std::to_string(label) + " 0:" + std::to_string(label + (i % 10) * 0.05) +
            " 1:" + std::to_string((i * 13) % 17) +
            (i % 4 == 0 ? "" : " 2:" + std::to_string(i % 5)) + "\n";
    weights += std::to_string(1 + (i % 3) * 0.5) + "\n";
  }
  test::WriteFile(dir.File("m.txt"), rows);
  test::WriteFile(dir.File("m.txt.weight"), weights);
  test::WriteFile(dir.File("m.conf"),
                  "objective = multi:softprob\nnum_class = 3\nnum_round = 3\n"
                  "colsample_bytree = 0.7\ndata = \"m.txt\"\n");
  ExpectSameModel(dir.path(), "train m.conf");
}
// task=pred over 3 workers writes the file one process writes (rows in input order).
TEST(MpiTraining, PredictionOverThreeWorkersEqualsOneProcess) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  const std::string data = test::SharedDataDir() + "/agaricus/";
  test::WriteFile(dir.File("p.conf"),
                  "objective = binary:logistic\nnum_round = 3\n"
                  "data = \"" +
                      data +
                      "agaricus.txt.train\"\n"
                      "test:data = \"" +
                      data + "agaricus.txt.test\"\n");
  ASSERT_EQ(test::RunRingboost(dir.path(), "train p.conf model_out=m.json").exit_code, 0);
  ASSERT_EQ(
      test::RunRingboost(dir.path(), "predict p.conf model_in=m.json name_pred=one.txt").exit_code,
      0);
  ASSERT_EQ(RunUnderMpirun(dir.path(), 3, "predict p.conf model_in=m.json name_pred=three.txt"), 0)
      << test::ReadFile(dir.File("mpi.out"));
  const std::string one = test::ReadFile(dir.File("one.txt"));
  EXPECT_EQ(std::count(one.begin(), one.end(), '\n'), 1611);
  EXPECT_EQ(test::ReadFile(dir.File("three.txt")), one);
}

// Two ranks started with different settings (mpirun's MPMD form) stop before training, both with
// an error naming the key; nthread may differ. Nothing is written.
TEST(MpiTraining, DifferentConfigsAreRefusedNamingTheKey) {
  test::TempDir dir;
  test::WriteFile(dir.File("d.txt"), "1 0:1\n0 0:2\n1 0:3\n0 0:4\n");
  test::WriteFile(dir.File("c.conf"),
                  "objective = binary:logistic\nnum_round = 2\n"
                  "data = \"d.txt\"\nmodel_out = \"m.json\"\n");
  const std::string exe = std::string("'") + RINGBOOST_EXE + "' train c.conf";
  std::string cmd = "cd '" + dir.path() + "' && OMPI_ALLOW_RUN_AS_ROOT=1 " +
                    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 " + RINGBOOST_MPIEXEC +
                    " --oversubscribe -np 1 " + exe + " : -np 1 " + exe +
                    " max_depth=4 nthread=1 > mpi.out 2>&1 </dev/null";
  int status = std::system(cmd.c_str());
  EXPECT_NE(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
  const std::string log = test::ReadFile(dir.File("mpi.out"));
  EXPECT_NE(log.find("settings differ: max_depth is '4' on rank 1 but (not set) on rank 0"),
            std::string::npos)
      << log;
  EXPECT_FALSE(test::FileExists(dir.File("m.json")));
}
#else
TEST(MpiTraining, Skipped) { GTEST_SKIP() << "built without MPI (RINGBOOST_USE_MPI=OFF)"; }
#endif

}  // namespace
}  // namespace ringboost
