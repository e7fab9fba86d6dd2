// How ringboost-submit reads its own command line (tracker/main.cc): a value from the environment
// is checked as the flag's is, and every refusal is a clear error naming the flag, never a crash.
#include <gtest/gtest.h>

#include <string>

#include "submit_runner.h"

namespace ringboost::submit {
namespace {

using ringboost::test::ScopedEnv;
using ringboost::test::TempDir;
using test::Contains;
using test::Job;
using test::Submit;

TEST(Flags, ClusterFromTheEnvironmentIsCheckedAsTheFlagIs) {
  TempDir dir;
  const Job flag = Submit(dir.path(), "--cluster yarn -n 1 true");
  EXPECT_NE(flag.exit_code, 0);
  for (const char* value : {"yarn", ""}) {
    ScopedEnv cluster("DMLC_SUBMIT_CLUSTER", value);
    const Job job = Submit(dir.path(), "-n 1 true");
    EXPECT_EQ(job.exit_code, flag.exit_code) << job.err;
    EXPECT_TRUE(Contains(job.err, "--cluster (default $DMLC_SUBMIT_CLUSTER): '" +
                                      std::string(value) + "' not in {local,ssh,mpi,kubernetes}"))
        << job.err;
  }
}

}  // namespace
}  // namespace ringboost::submit
