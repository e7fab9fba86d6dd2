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

// `--` ends ringboost-submit's options and is dropped; an option it does not know before the
// command is an error (not the program, nor an argument appended to it); with no program there
// is nothing to run. After the program every word is its own, `--` too.
TEST(Flags, DoubleDashEndsTheOptionsAndUnknownOnesAreErrors) {
  TempDir dir;
  Job job = Submit(dir.path(), "-n 1 -- echo hi");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_TRUE(Contains(job.out, "] hi\n")) << job.out;
  job = Submit(dir.path(), "-n 1 echo a -- b");
  EXPECT_TRUE(Contains(job.out, "] a -- b\n")) << job.out;
  for (const char* args : {"-n 1 --foo=1 echo hi", "-n 1 --foo=1", "-n 1 --foo=1 -- echo hi"}) {
    job = Submit(dir.path(), args);
    EXPECT_NE(job.exit_code, 0) << args;
    EXPECT_NE(job.exit_code, 127) << args;  // not run as the program
    EXPECT_TRUE(Contains(job.err, "The following argument was not expected: --foo=1")) << job.err;
    EXPECT_FALSE(Contains(job.out, "hi")) << job.out;
  }
  job = Submit(dir.path(), "-n 1 --");
  EXPECT_EQ(job.exit_code, 2);
  EXPECT_TRUE(Contains(job.err, "no COMMAND to run")) << job.err;
  job = Submit(dir.path(), "--cluster kubernetes -n 2 --image rb:1 -o - -- ringboost --version");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_TRUE(Contains(job.out, "- \"ringboost\"\n            - \"--version\"\n")) << job.out;
  EXPECT_FALSE(Contains(job.out, "\"--\"")) << job.out;
}

// The variables ringboost-submit sets itself cannot come from --env (the token would override the
// job's, and under ssh travel on a command line); any other name can, for every cluster.
TEST(Flags, EnvCannotSetTheLaunchersOwnVariables) {
  TempDir dir;
  for (const char* name : {"RINGBOOST_JOB_TOKEN", "DMLC_TASK_ID", "DMLC_TRACKER_URI",
                           "LC_RINGBOOST_JOB_TOKEN", "DMLC_NUM_ATTEMPT"}) {
    for (const char* cluster : {"local", "ssh", "kubernetes"}) {
      const Job job = Submit(dir.path(), std::string("--cluster ") + cluster + " -n 1 --env " +
                                             name + "=s3cret -o - --image rb:1 -- echo ran");
      EXPECT_EQ(job.exit_code, 2) << name << " " << cluster << ": " << job.err;
      EXPECT_TRUE(Contains(job.err, std::string("error: --env ") + name + "=...: " + name +
                                        " is set by ringboost-submit itself"))
          << job.err;
      EXPECT_TRUE(Contains(job.err, "reserved names are DMLC_TRACKER_URI, ")) << job.err;
      EXPECT_FALSE(Contains(job.err + job.out, "s3cret")) << job.err << job.out;
      EXPECT_FALSE(Contains(job.out, "ran")) << job.out;
    }
  }
  const Job job =
      Submit(dir.path(), "-n 1 --env DMLC_INTERFACE=lo -- sh -c 'echo $DMLC_INTERFACE'");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_TRUE(Contains(job.out, "] lo\n")) << job.out;
}

// --connect-timeout is a finite number of seconds from 0.1 to 10000000: nan, inf, negative,
// huge, hex and empty values are refused naming the flag; a value is said as it was given.
TEST(Flags, ConnectTimeoutIsAFiniteNumberOfSecondsSaidAsGiven) {
  TempDir dir;
  for (const char* value : {"nan", "NaN", "inf", "-inf", "-1", "0", "0.05", "1e300", "10000001",
                            "0x10", "5s", "''", "' 5'"}) {
    const Job job = Submit(dir.path(), std::string("-n 1 --connect-timeout ") + value + " true");
    EXPECT_EQ(job.exit_code, 2) << value << ": " << job.err;
    EXPECT_TRUE(Contains(job.err, "expected a number of seconds from 0.1 to 10000000")) << job.err;
  }
  const Job job = Submit(dir.path(), "-n 2 --connect-timeout 0.5 sleep 30.5");
  EXPECT_EQ(job.exit_code, 1) << job.err;
  EXPECT_TRUE(Contains(job.err, "within 0.5 s (--connect-timeout)")) << job.err;
}

}  // namespace
}  // namespace ringboost::submit
