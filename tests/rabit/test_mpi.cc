// The mpi backend across real Open MPI processes: mpirun -np 2 and 4 of check/main.cc.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "helpers.h"

namespace ringboost {
namespace {

#if defined(RINGBOOST_MPIEXEC)
std::string RunMpi(int np, int* exit_code) {
  test::TempDir dir;
  std::string out = dir.File("out.txt");
  std::string cmd = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 " +
                    std::string(RINGBOOST_MPIEXEC) + " --oversubscribe -np " + std::to_string(np) +
                    " '" + RINGBOOST_RABIT_CHECK + "' expect=mpi > '" + out + "' 2>&1 </dev/null";
  int status = std::system(cmd.c_str());
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return test::ReadFile(out);
}

class Mpi : public ::testing::TestWithParam<int> {};

TEST_P(Mpi, EveryCollectiveMatchesTheReference) {
  int code = -1;
  std::string out = RunMpi(GetParam(), &code);
  EXPECT_EQ(code, 0) << out;
  for (int r = 0; r < GetParam(); ++r) {
    std::string line = "rank " + std::to_string(r) + " of " + std::to_string(GetParam()) + " ok";
    EXPECT_NE(out.find(line), std::string::npos) << out;
  }
}

INSTANTIATE_TEST_SUITE_P(Processes, Mpi, ::testing::Values(2, 4));
#else
TEST(Mpi, Skipped) { GTEST_SKIP() << "built without MPI (RINGBOOST_USE_MPI=OFF)"; }
#endif

}  // namespace
}  // namespace ringboost
