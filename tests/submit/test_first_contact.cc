// What a newcomer meets first with ringboost-submit (issue 25): local workers share the cores
// instead of each taking all of them, and a Kubernetes job refuses its own options written after
// the worker command and warns about paths the pods cannot see.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "helpers.h"

namespace ringboost::submit {
namespace {

using test::ReadFile;
using test::TempDir;

struct Job {
  int exit_code = -1;
  std::string out, err;
};

// Runs `ringboost-submit ARGS` in `dir` without OMP_NUM_THREADS and RINGBOOST_IMAGE set.
Job SubmitIn(const TempDir& dir, const std::string& args) {
  const std::string cmd = "cd '" + dir.path() +
                          "' && env -u OMP_NUM_THREADS -u RINGBOOST_IMAGE timeout 120 '" +
                          RINGBOOST_SUBMIT + "' " + args + " > job.out 2> job.err < /dev/null";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(dir.File("job.out")),
          ReadFile(dir.File("job.err"))};
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

int Cores() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

// Every local worker gets cores / workers threads (at least 1) through OMP_NUM_THREADS, which
// ringboost's nthread=0 follows.
TEST(LocalThreads, EachWorkerGetsItsShareOfTheCores) {
  TempDir dir;
  Job job = SubmitIn(dir, "--cluster local --num-workers 4 sh -c 'echo threads=$OMP_NUM_THREADS'");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  const std::string share = std::to_string(std::max(1, Cores() / 4));
  for (int r = 0; r < 4; ++r) {
    EXPECT_TRUE(Contains(job.out, "[task " + std::to_string(r) + "] threads=" + share + "\n") ||
                Contains(job.out, "[rank " + std::to_string(r) + "] threads=" + share + "\n"))
        << job.out;
  }
  EXPECT_TRUE(Contains(job.err, "OMP_NUM_THREADS=" + share + " each")) << job.err;
}

TEST(LocalThreads, TheUsersOwnSettingIsKept) {
  TempDir dir;
  Job job = SubmitIn(
      dir, "--num-workers 2 --env OMP_NUM_THREADS=3 sh -c 'echo threads=$OMP_NUM_THREADS'");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_EQ(std::count(job.out.begin(), job.out.end(), '='), 2) << job.out;
  EXPECT_TRUE(Contains(job.out, "] threads=3\n")) << job.out;
  EXPECT_FALSE(Contains(job.out, "] threads=1\n")) << job.out;
}

// --cluster mpi without a host file runs every rank here: the same share.
TEST(LocalThreads, MpiRanksWithoutAHostFileGetTheirShare) {
  if (std::system("command -v mpirun > /dev/null 2>&1") != 0) GTEST_SKIP() << "no mpirun";
  TempDir dir;
  Job job = SubmitIn(dir, "--cluster mpi --num-workers 4 sh -c 'echo threads=$OMP_NUM_THREADS'");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  const std::string share = std::to_string(std::max(1, Cores() / 4));
  EXPECT_EQ(std::count(job.out.begin(), job.out.end(), '='), 4) << job.out;
  EXPECT_FALSE(Contains(job.out, "threads=\n")) << job.out;
  EXPECT_TRUE(Contains(job.out, "] threads=" + share + "\n")) << job.out;
}

// nthread=0 in ringboost follows OMP_NUM_THREADS (verbosity=2 logs the threads of the setup).
TEST(LocalThreads, RingboostWithNthreadZeroFollowsOmpNumThreads) {
  TempDir dir;
  test::WriteFile(dir.File("d.txt"), "1 0:1\n0 0:2\n1 0:3\n0 0:4\n");
  const std::string cmd = "cd '" + dir.path() + "' && OMP_NUM_THREADS=3 '" + RINGBOOST_EXE +
                          "' train /dev/null data=d.txt num_round=1 objective=binary:logistic "
                          "model_out=m.json verbosity=3 > out.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << ReadFile(dir.File("out.txt"));
  EXPECT_TRUE(Contains(ReadFile(dir.File("out.txt")), "rank 0 of 1, 3 thread(s)"))
      << ReadFile(dir.File("out.txt"));
}

const char kK8s[] = "--cluster kubernetes --num-workers 2 --image reg/ringboost:1 ";

TEST(KubernetesCommand, OptionsAfterTheCommandAreRefusedNamingTheFix) {
  TempDir dir;
  Job job = SubmitIn(dir, std::string(kK8s) + "ringboost train train.conf -o job.yaml");
  EXPECT_EQ(job.exit_code, 1) << job.err;
  EXPECT_TRUE(Contains(job.err,
                       "'-o job.yaml' comes after the worker command 'ringboost train "
                       "train.conf'"))
      << job.err;
  EXPECT_TRUE(Contains(job.err,
                       "ringboost-submit --cluster kubernetes ... -o job.yaml "
                       "ringboost train train.conf"))
      << job.err;
  EXPECT_FALSE(test::FileExists(dir.File("job.yaml")));
  EXPECT_FALSE(test::FileExists(dir.File("ringboost-mpijob.yaml")));
  job = SubmitIn(dir, std::string(kK8s) + "ringboost train train.conf --volume=data:/data");
  EXPECT_EQ(job.exit_code, 1) << job.err;
  EXPECT_TRUE(Contains(job.err, "'--volume=data:/data' comes after")) << job.err;
}

// `ringboost dump ... -o FILE` is ringboost's own option, not ringboost-submit's.
TEST(KubernetesCommand, DumpKeepsItsOwnOutputOption) {
  TempDir dir;
  Job job = SubmitIn(
      dir, std::string(kK8s) + "-o job.yaml --volume data:/data ringboost dump m.json -o d.txt");
  EXPECT_EQ(job.exit_code, 0) << job.err;
  EXPECT_TRUE(Contains(ReadFile(dir.File("job.yaml")), "\"-o\"")) << ReadFile(dir.File("job.yaml"));
}

TEST(KubernetesCommand, LocalProgramPathAndMissingVolumeDrawWarnings) {
  TempDir dir;
  Job job = SubmitIn(dir, std::string(kK8s) + "-o job.yaml build/ringboost train train.conf");
  EXPECT_EQ(job.exit_code, 0) << job.err;
  EXPECT_TRUE(Contains(job.err,
                       "warning: the worker command 'build/ringboost' is a path on this "
                       "machine"))
      << job.err;
  EXPECT_TRUE(Contains(job.err, "use 'ringboost'")) << job.err;
  EXPECT_TRUE(Contains(job.err, "warning: no --volume: the pods look for 'train.conf'")) << job.err;
  job = SubmitIn(dir,
                 std::string(kK8s) + "-o job.yaml --volume data:/data ringboost train train.conf");
  EXPECT_EQ(job.exit_code, 0) << job.err;
  EXPECT_FALSE(Contains(job.err, "warning")) << job.err;
  job = SubmitIn(dir, std::string(kK8s) + "-o job.yaml ringboost train /etc/rb/train.conf");
  EXPECT_FALSE(Contains(job.err, "warning")) << job.err;
  job = SubmitIn(dir, std::string(kK8s) + "-o job.yaml ringboost train /etc/rb/t.conf data=d.txt");
  EXPECT_TRUE(Contains(job.err, "no --volume: the pods look for 'data=d.txt'")) << job.err;
}

// A joined short form (-ojob.yaml) is ringboost-submit's option too; ringboost's own -o of
// export, importance and plot passes; for another program the error offers `--`, after which
// every word is the program's.
TEST(KubernetesCommand, JoinedFormsOwnOptionsAndTheDoubleDash) {
  TempDir dir;
  Job job = SubmitIn(dir, std::string(kK8s) + "ringboost train /c -ojob.yaml");
  EXPECT_EQ(job.exit_code, 1) << job.err;
  EXPECT_TRUE(Contains(job.err, "'-ojob.yaml' comes after the worker command 'ringboost train /c'"))
      << job.err;
  EXPECT_TRUE(Contains(job.err,
                       "before the command: ringboost-submit --cluster kubernetes ... "
                       "-ojob.yaml ringboost train /c"))
      << job.err;
  EXPECT_FALSE(Contains(job.err, " -- ")) << job.err;  // ringboost has no -o of its own there
  for (const char* own :
       {"ringboost export m.json -o m.ubj", "ringboost importance m.json -o i.txt",
        "ringboost plot importance m.json --output=i.svg"}) {
    job = SubmitIn(dir, std::string(kK8s) + "-o job.yaml --volume data:/data " + own);
    EXPECT_EQ(job.exit_code, 0) << own << ": " << job.err;
  }
  job = SubmitIn(dir, std::string(kK8s) + "-o job.yaml python3 /app/train.py -n 10 --lr 1");
  EXPECT_EQ(job.exit_code, 1) << job.err;
  EXPECT_TRUE(Contains(job.err,
                       "if it is ringboost-submit's option, put it before the command: "
                       "ringboost-submit --cluster kubernetes ... -n 10 python3 /app/train.py "
                       "--lr 1; if it is the command's own, end ringboost-submit's options with "
                       "--: ringboost-submit --cluster kubernetes ... -- python3 /app/train.py -n "
                       "10 --lr 1"))
      << job.err;
  job = SubmitIn(dir, std::string(kK8s) + "-o job.yaml -- python3 /app/train.py -n 10 -ofile");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_TRUE(Contains(ReadFile(dir.File("job.yaml")),
                       "- \"/app/train.py\"\n            - \"-n\"\n            - \"10\"\n"
                       "            - \"-ofile\"\n"))
      << ReadFile(dir.File("job.yaml"));
}

}  // namespace
}  // namespace ringboost::submit
