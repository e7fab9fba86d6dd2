// The MPIJob that `ringboost-submit --cluster kubernetes` writes, run as the MPI Operator and the
// kubelet would run it: tests/k8s/simulate_mpijob.py gives every pod its own network, UTS and
// mount namespace, a real sshd in each worker with a fresh job key, the operator's hostfile and
// launcher environment, and runs the launcher's mpirun command as the image's non-root user.
// The model must equal, byte for byte, the model of one `ringboost train` process. The tests skip
// with the simulator's message where the machine lacks root or namespaces (exit status 77).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

using test::ReadFile;
using test::TempDir;
using test::WriteFile;
using test::WriteGeneratedDense;

const char kJob[] = "rb-sim";
const char kClaim[] = "ringboost-data";
const char kMount[] = "/data";

int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// Runs a shell command line; its stdout and stderr go to `log`.
int Shell(const std::string& command, const std::string& log) {
  return ExitCode(std::system((command + " > '" + log + "' 2>&1 < /dev/null").c_str()));
}

// The volume (the claim's folder) with a.conf and its data, and the manifest beside it.
class K8sSimulation : public ::testing::Test {
 protected:
  std::string Volume(const std::string& name) const { return volume_.File(name); }

  void WriteAgaricus() {
    const std::string data = test::SharedDataDir() + "/agaricus/";
    WriteFile(Volume("agaricus.txt.train"), ReadFile(data + "agaricus.txt.train"));
    WriteFile(Volume("agaricus.txt.test"), ReadFile(data + "agaricus.txt.test"));
    WriteFile(Volume("a.conf"),
              "objective = binary:logistic\nmax_depth = 5\nnum_round = 6\nsubsample = 0.8\n"
              "colsample_bynode = 0.8\nseed = 5\ndata = \"agaricus.txt.train\"\n"
              "eval[test] = \"agaricus.txt.test\"\n");
  }

  // `ringboost train a.conf model_out=one.json ARGS` as one process in the volume folder.
  void TrainOneProcess(const std::string& args) {
    const std::string cmd = "cd '" + volume_.path() +
                            "' && '" RINGBOOST_EXE "' train a.conf model_out=one.json " + args;
    ASSERT_EQ(Shell(cmd, work_.File("one.log")), 0) << ReadFile(work_.File("one.log"));
  }

  // ringboost-submit --cluster kubernetes ... -o job.yaml ringboost train a.conf ARGS.
  void Submit(int workers, int slots, const std::string& args) {
    const std::string cmd = std::string("'") + RINGBOOST_SUBMIT +
                            "' --cluster kubernetes --image ringboost:test --jobname " + kJob +
                            " --num-workers " + std::to_string(workers) + " --slots-per-worker " +
                            std::to_string(slots) + " --volume " + kClaim + ":" + kMount + " -o '" +
                            Manifest() + "' ringboost train a.conf " + args;
    ASSERT_EQ(Shell(cmd, work_.File("submit.log")), 0) << ReadFile(work_.File("submit.log"));
  }

  // simulate_mpijob.py on the manifest; returns its exit status, its output in output_.
  int Simulate(const std::string& flags) {
    const std::string cmd = "timeout 170 /usr/bin/python3 '" RINGBOOST_SOURCE_DIR
                            "/tests/k8s/simulate_mpijob.py' '" +
                            Manifest() + "' --pvc " + kClaim + "='" + volume_.path() +
                            "' --ringboost '" RINGBOOST_EXE "' --timeout 60 " + flags;
    const int code = Shell(cmd, work_.File("sim.log"));
    output_ = ReadFile(work_.File("sim.log"));
    return code;
  }

  // The simulator's reason for exit status 77.
  std::string SkipReason() const {
    const std::size_t at = output_.find("[sim] skipped: ");
    return at == std::string::npos ? output_ : output_.substr(at);
  }

  std::string Manifest() const { return work_.File("job.yaml"); }

  // Status N of the `nth` "[sim] launcher exited with status N" (0-based); -1 if absent.
  int LauncherStatus(int nth) const {
    const std::string key = "[sim] launcher exited with status ";
    std::size_t at = 0;
    for (int i = 0; i <= nth; ++i) {
      at = output_.find(key, i == 0 ? 0 : at + 1);
      if (at == std::string::npos) return -1;
    }
    return std::atoi(output_.c_str() + at + key.size());
  }

  void ExpectSameModel() {
    ASSERT_FALSE(ReadFile(Volume("one.json")).empty());
    EXPECT_EQ(ReadFile(Volume("k8s.json")), ReadFile(Volume("one.json"))) << output_;
  }

  TempDir volume_, work_;
  std::string output_;
};

#define RB_SKIP_IF_NO_NAMESPACES(code)              \
  do {                                              \
    if ((code) == 77) GTEST_SKIP() << SkipReason(); \
  } while (0)

TEST_F(K8sSimulation, TwoWorkersTrainTheOneProcessModel) {
  RB_REQUIRE_SHARED_DATA();
  WriteAgaricus();
  TrainOneProcess("");
  Submit(2, 1, "model_out=k8s.json verbosity=2");
  const int code = Simulate("");
  RB_SKIP_IF_NO_NAMESPACES(code);
  ASSERT_EQ(code, 0) << output_;
  // The operator's hostfile (the workers' Service is <job>-worker), the job key, both ranks.
  EXPECT_NE(output_.find("\nrb-sim-worker-1.rb-sim-worker.default.svc slots=1\n"),
            std::string::npos)
      << output_;
  EXPECT_NE(output_.find("2 workers ready"), std::string::npos) << output_;
  EXPECT_NE(output_.find("Accepted publickey for mpiuser"), std::string::npos) << output_;
  EXPECT_NE(output_.find("communicator mpi: rank 1 of 2"), std::string::npos) << output_;
  ExpectSameModel();
}

TEST_F(K8sSimulation, TwoWorkersOfTwoSlotsTrainTheOneProcessModel) {
  RB_REQUIRE_SHARED_DATA();
  WriteAgaricus();
  TrainOneProcess("");
  // One thread a slot: 4 ranks of OpenMP threads spinning on 2 cores would crawl.
  Submit(2, 2, "model_out=k8s.json verbosity=2 nthread=1");
  const int code = Simulate("");
  RB_SKIP_IF_NO_NAMESPACES(code);
  ASSERT_EQ(code, 0) << output_;
  EXPECT_NE(output_.find("OMPI_MCA_orte_set_default_slots=2"), std::string::npos) << output_;
  EXPECT_NE(output_.find("communicator mpi: rank 3 of 4"), std::string::npos) << output_;
  ExpectSameModel();
}

// The launcher's ssh connects before the workers' sshd listens: ConnectionAttempts=10 (from
// the operator's OMPI_MCA_plm_rsh_args) retries until it does.
TEST_F(K8sSimulation, WorkersWhoseSshdStartsLateAreReachedByTheSshRetry) {
  RB_REQUIRE_SHARED_DATA();
  WriteAgaricus();
  TrainOneProcess("");
  Submit(2, 1, "model_out=k8s.json");
  const int code = Simulate("--workers-late 3");
  RB_SKIP_IF_NO_NAMESPACES(code);
  ASSERT_EQ(code, 0) << output_;
  const std::size_t late = output_.find("workers' sshd started 3 s after the launcher");
  ASSERT_NE(late, std::string::npos) << output_;
  EXPECT_LT(late, output_.find("model written to k8s.json")) << output_;
  ExpectSameModel();
}

// Worker pod 1 loses every process (kill -9) after the second checkpoint: mpirun fails and names
// the lost host. Restarted as the kubelet does (restartPolicy OnFailure), the launcher resumes
// from the newest checkpoint in checkpoint_dir on the volume and writes the one-process model.
TEST_F(K8sSimulation, KilledWorkerFailsTheLauncherAndTheRerunResumesFromTheCheckpoint) {
  WriteGeneratedDense(Volume("train.txt"), 60000);
  WriteFile(Volume("a.conf"),
            "objective = binary:logistic\neval_metric = auc\nmax_depth = 6\nnum_round = 40\n"
            "subsample = 0.9\ndata = \"train.txt\"\n");
  TrainOneProcess("");
  Submit(2, 1, "model_out=k8s.json");
  ASSERT_NE(ReadFile(Manifest())
                .find(std::string("checkpoint_dir=") + kMount + "/" + kJob + "-checkpoints"),
            std::string::npos)
      << ReadFile(Manifest());
  const int code = Simulate("--kill-worker 1 --kill-after-checkpoints 2 --rerun");
  RB_SKIP_IF_NO_NAMESPACES(code);
  ASSERT_EQ(code, 0) << output_;
  const std::size_t kill = output_.find("[sim] killing worker pod");
  const std::size_t failed = output_.find("[sim] launcher exited with status");
  ASSERT_NE(kill, std::string::npos) << output_;
  ASSERT_LT(kill, failed) << output_;
  EXPECT_NE(LauncherStatus(0), 0) << output_;
  const std::string after_kill = output_.substr(output_.find('\n', kill), failed - kill);
  EXPECT_NE(after_kill.find(std::string(kJob) + "-worker-1"), std::string::npos) << output_;
  EXPECT_EQ(LauncherStatus(1), 0) << output_;
  const std::size_t resumed = output_.find("[ringboost] resuming from round ");
  ASSERT_NE(resumed, std::string::npos) << output_;
  EXPECT_GT(resumed, failed);
  EXPECT_GE(std::atoi(output_.c_str() + resumed + 32), 2) << output_;
  ExpectSameModel();
}

}  // namespace
}  // namespace ringboost
