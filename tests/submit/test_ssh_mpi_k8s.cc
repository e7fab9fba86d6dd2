// The ssh, mpi and kubernetes launchers. The ssh tests run a private sshd on 127.0.0.1 (keys
// made here) and skip when openssh-server is not installed; the mpi tests run a real mpirun
// and skip without one. Worker output is read back from the job's --log-file.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include "helpers.h"
#include "process.h"
#include "submit.h"

namespace ringboost::submit {
namespace {

using test::FileExists;
using test::ReadFile;
using test::TempDir;
using test::WriteFile;

bool InPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "";
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    if (access((dirs.substr(start, end - start) + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

// Two workers as ringboost-submit makes them: task ids i:TOKEN and the tracker's variables.
std::vector<WorkerSpec> TwoWorkers(const std::string& extra_key = "",
                                   const std::string& extra_value = "") {
  std::vector<WorkerSpec> workers(2);
  for (int i = 0; i < 2; ++i) {
    workers[i].task_id = i;
    workers[i].env = {{"DMLC_TRACKER_URI", "10.1.2.3"},
                      {"DMLC_TRACKER_PORT", "9091"},
                      {"DMLC_TASK_ID", std::to_string(i) + ":tok3n"},
                      {"RINGBOOST_JOB_TOKEN", "tok3n"}};
    if (!extra_key.empty()) workers[i].env.emplace_back(extra_key, extra_value);
  }
  return workers;
}

// Task 1 is ranked 7 by the tracker; task 0 is not ranked yet.
int TestRankOf(int task) { return task == 1 ? 7 : -1; }

// Runs one launcher in the background of a test, so the test can set `stop`.
Status RunStoppedAfterStart(Launcher* launcher, const std::vector<WorkerSpec>& workers,
                            const std::string& log_path, const std::string& started_text) {
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    // Stops once the workers have printed, i.e. they are surely running.
    for (int i = 0; i < 3000 && ReadFile(log_path).find(started_text) == std::string::npos; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    stop = true;
  });
  Status s = launcher->Run(workers, stop);
  stopper.join();
  return s;
}

// True when no process runs with exactly this command line (checked for up to 10 s, as a
// remote worker ends on SIGHUP a moment after its ssh).
bool ProcessGone(const std::string& cmdline) {
  for (int i = 0; i < 1000; ++i) {
    std::unique_ptr<ChildProcess> pgrep;
    std::string out;
    std::mutex mutex;
    const Status started = ChildProcess::Start(
        {"pgrep", "-xf", cmdline}, {},
        [&](const std::string& line) {
          std::lock_guard<std::mutex> lock(mutex);
          out += line;
        },
        &pgrep);
    if (!started.ok()) return false;
    if (pgrep->Wait() == 1) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// ---- kubernetes ------------------------------------------------------------------------------

class CurrentDir {
 public:
  explicit CurrentDir(const std::string& dir) {
    char buf[4096];
    old_ = getcwd(buf, sizeof(buf)) != nullptr ? buf : ".";
    EXPECT_EQ(chdir(dir.c_str()), 0);
  }
  ~CurrentDir() { (void)!chdir(old_.c_str()); }

 private:
  std::string old_;
};

TEST(KubernetesLauncher, WritesMpiJobAndStartsNothing) {
  TempDir dir;
  CurrentDir in_dir(dir.path());
  test::ScopedEnv image("RINGBOOST_IMAGE", "registry.example/rb:1.0");
  SubmitOptions options;
  options.cluster = "kubernetes";
  options.num_workers = 3;
  options.slots_per_worker = 2;
  options.gpus_per_worker = 1;
  options.jobname = "demo";
  options.k8s_namespace = "ml";
  options.worker_cores = 2;
  options.worker_memory = "2g";
  options.volume = "rb-data:/data/";
  options.env = {{"OMP_NUM_THREADS", "2"}};
  options.command = {"ringboost", "train", "my train.conf"};
  JobLog log(dir.File("job.log"));
  std::atomic<bool> stop{false};
  Status s = MakeKubernetesLauncher(options, &log, TestRankOf)->Run({}, stop);
  ASSERT_TRUE(s.ok()) << s.message();
  const std::string yaml = ReadFile(dir.File("demo-mpijob.yaml"));
  EXPECT_NE(yaml.find("apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\n"), std::string::npos);
  EXPECT_NE(yaml.find("metadata:\n  name: \"demo\"\n  namespace: \"ml\"\n"), std::string::npos);
  EXPECT_NE(yaml.find("spec:\n  slotsPerWorker: 2\n  mpiImplementation: OpenMPI\n"
                      "  launcherCreationPolicy: WaitForWorkersReady\n"
                      "  sshAuthMountPath: \"/home/mpiuser/.ssh\"\n"
                      "  runPolicy:\n    cleanPodPolicy: Running\n    backoffLimit: 6\n"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("    Launcher:\n      replicas: 1\n      restartPolicy: OnFailure\n"),
            std::string::npos);
  EXPECT_NE(yaml.find("    Worker:\n      replicas: 3\n      restartPolicy: OnFailure\n"),
            std::string::npos);
  EXPECT_NE(yaml.find("image: \"registry.example/rb:1.0\""), std::string::npos);
  const std::string i = "            - ";
  EXPECT_NE(yaml.find("            command:\n" + i + "mpirun\n            args:\n" + i +
                      "\"--hostfile\"\n" + i + "\"/etc/mpi/hostfile\"\n" + i + "\"-np\"\n" + i +
                      "\"6\"\n" + i + "\"-x\"\n" + i + "\"OMP_NUM_THREADS=2\"\n" + i +
                      "\"ringboost\"\n" + i + "\"train\"\n" + i + "\"my train.conf\"\n" + i +
                      "\"checkpoint_dir=/data/demo-checkpoints\"\n"
                      "            workingDir: \"/data\"\n"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("            command:\n" + i + "\"/usr/sbin/sshd\"\n" + i + "\"-De\"\n" + i +
                      "\"-f\"\n" + i + "\"/home/mpiuser/.sshd_config\"\n"),
            std::string::npos);
  EXPECT_NE(yaml.find("readinessProbe:\n              tcpSocket:\n                port: 2222\n"),
            std::string::npos);
  EXPECT_NE(yaml.find("cpu: \"2\"\n                memory: \"2Gi\"\n"
                      "                nvidia.com/gpu: \"1\"\n"),
            std::string::npos);
  EXPECT_NE(yaml.find("            volumeMounts:\n            - name: data\n"
                      "              mountPath: \"/data\"\n          volumes:\n"
                      "          - name: data\n            persistentVolumeClaim:\n"
                      "              claimName: \"rb-data\"\n"),
            std::string::npos);
  EXPECT_EQ(yaml.find("DMLC_TRACKER"), std::string::npos);       // no tracker in the cluster
  EXPECT_EQ(yaml.find("ALLOW_RUN_AS_ROOT"), std::string::npos);  // mpiuser, not root
  EXPECT_NE(ReadFile(dir.File("job.log")).find("kubectl apply -f demo-mpijob.yaml"),
            std::string::npos);
}

TEST(KubernetesLauncher, CheckpointDirOnlyForRingboostTrainWithAVolume) {
  TempDir dir;
  SubmitOptions options;
  options.num_workers = 1;
  options.image = "rb:1";
  options.output = dir.File("job.yaml");
  JobLog log("");
  std::atomic<bool> stop{false};
  auto args_of = [&](std::vector<std::string> command, const std::string& volume) {
    options.command = std::move(command);
    options.volume = volume;
    Status s = MakeKubernetesLauncher(options, &log, nullptr)->Run({}, stop);
    EXPECT_TRUE(s.ok()) << s.message();
    const std::string yaml = ReadFile(options.output);
    return yaml.substr(yaml.find("args:"), yaml.find("workingDir") - yaml.find("args:"));
  };
  const std::string checkpoint = "checkpoint_dir=/v/ringboost-checkpoints";
  EXPECT_NE(args_of({"/usr/local/bin/ringboost", "train", "t.conf"}, "c:/v").find(checkpoint),
            std::string::npos);
  EXPECT_NE(args_of({"ringboost", "t.conf"}, "c:/v").find(checkpoint), std::string::npos);
  EXPECT_EQ(args_of({"ringboost", "train", "t.conf"}, "").find(checkpoint), std::string::npos);
  EXPECT_EQ(args_of({"ringboost", "predict", "t.conf"}, "c:/v").find(checkpoint),
            std::string::npos);
  EXPECT_EQ(args_of({"sh", "-c", "ringboost train t.conf"}, "c:/v").find(checkpoint),
            std::string::npos);
  const std::string own = args_of({"ringboost", "train", "t.conf", "checkpoint_dir=ck"}, "c:/v");
  EXPECT_NE(own.find("\"checkpoint_dir=ck\""), std::string::npos);
  EXPECT_EQ(own.find(checkpoint), std::string::npos);
}

TEST(KubernetesLauncher, RefusedValuesNameTheFlagAndWriteNothing) {
  TempDir dir;
  CurrentDir in_dir(dir.path());
  test::ScopedEnv image("RINGBOOST_IMAGE", "rb:1");
  JobLog log("");
  std::atomic<bool> stop{false};
  auto message_of = [&](auto change) {
    SubmitOptions options;
    options.num_workers = 2;
    options.command = {"ringboost"};
    change(&options);
    return MakeKubernetesLauncher(options, &log, nullptr)->Run({}, stop).message();
  };
  EXPECT_NE(message_of([](SubmitOptions* o) {
              o->worker_memory = "lots";
            }).find("--worker-memory lots: expected a size"),
            std::string::npos);
  EXPECT_NE(message_of([](SubmitOptions* o) {
              o->jobname = "My_Job";
            }).find("--jobname My_Job: a Kubernetes job name must be"),
            std::string::npos);
  EXPECT_EQ(message_of([](SubmitOptions* o) {
              o->num_workers = 100;
              o->jobname = std::string(54, 'j');
            }),
            "--jobname " + std::string(54, 'j') + ": the last worker pod's name " +
                std::string(54, 'j') +
                "-worker-99 has 64 characters; Kubernetes allows 63 (with 100 workers the name "
                "may have at most 53)");
  EXPECT_EQ(message_of([](SubmitOptions* o) { o->volume = "data:/home/mpiuser"; }),
            "--volume data:/home/mpiuser: the mount path '/home/mpiuser' collides with "
            "/home/mpiuser/.ssh (the operator's hostfile and ssh keys, the sshd config and the "
            "ringboost binary live there); mount the volume elsewhere, e.g. /data");
  EXPECT_EQ(message_of([](SubmitOptions* o) { o->gpus_per_worker = -2; }),
            "--gpus-per-worker -2: must be 0 or more");
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// ---- ssh: the host file ----------------------------------------------------------------------

Status RunSshWith(const std::string& host_file) {
  SubmitOptions options;
  options.cluster = "ssh";
  options.host_file = host_file;
  options.command = {"true"};
  JobLog log("");
  std::atomic<bool> stop{false};
  return MakeSshLauncher(options, &log, nullptr)->Run(TwoWorkers(), stop);
}

TEST(SshLauncher, HostFileErrorsNameFileAndLine) {
  TempDir dir;
  EXPECT_NE(RunSshWith("").message().find("needs --host-file"), std::string::npos);
  const std::string missing = dir.File("missing.txt");
  EXPECT_NE(RunSshWith(missing).message().find(missing), std::string::npos);
  EXPECT_EQ(RunSshWith(dir.path()).message(),
            "--host-file: " + dir.path() + ": is a directory, not a file");
  const std::string empty = WriteFile(dir.File("empty.txt"), "\n  # only a comment\n");
  EXPECT_NE(RunSshWith(empty).message().find(empty + ": no hosts"), std::string::npos);
  const std::string bad = WriteFile(dir.File("bad.txt"), "node1:22\nnode2:x22\n");
  Status s = RunSshWith(bad);
  EXPECT_NE(s.message().find(bad + ":2: bad port 'x22' in 'node2:x22'"), std::string::npos)
      << s.message();
  const std::string big = WriteFile(dir.File("big.txt"), "# hosts\nnode1 slots=4\nnode2:70000\n");
  s = RunSshWith(big);
  EXPECT_NE(s.message().find(big + ":3: bad port '70000'"), std::string::npos) << s.message();
}

// A host word starting with '-' would be an ssh option (here one that runs a command on this
// machine): refused before any ssh starts, naming the file and line.
TEST(SshLauncher, HostStartingWithDashIsRefused) {
  TempDir dir;
  const std::string pwned = dir.File("pwned");
  for (const std::string& word :
       {"-oProxyCommand=touch${IFS}" + pwned, "[-oProxyCommand=touch${IFS}" + pwned + "]:22"}) {
    const std::string hosts = WriteFile(dir.File("hosts"), "# hosts\n" + word + "\nnode2\n");
    const Status s = RunSshWith(hosts);
    EXPECT_NE(s.message().find(hosts + ":2: '" + word +
                               "': a host name cannot start with '-' (ssh would take it for an "
                               "option)"),
              std::string::npos)
        << s.message();
    EXPECT_FALSE(FileExists(pwned));
  }
}

// ---- ssh: a real sshd on 127.0.0.1 -----------------------------------------------------------

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

bool Accepts(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

// A private sshd on 127.0.0.1:port() accepting the key client_key(); skip_reason() is set when
// it cannot run here.
class SshdFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/usr/sbin/sshd", X_OK) != 0) {
      skip_ = "openssh-server not installed (/usr/sbin/sshd missing)";
      return;
    }
    if (!InPath("ssh") || !InPath("ssh-keygen")) {
      skip_ = "ssh or ssh-keygen not in PATH";
      return;
    }
    // sshd insists on its privilege separation folder when run as root.
    if (geteuid() == 0) mkdir("/run/sshd", 0755);
    for (const char* key : {"host_key", "client_key"}) {
      std::unique_ptr<ChildProcess> keygen;
      const Status started = ChildProcess::Start(
          {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir_.File(key)}, {},
          [](const std::string&) {}, &keygen);
      ASSERT_TRUE(started.ok()) << started.message();
      ASSERT_EQ(keygen->Wait(), 0);
    }
    WriteFile(dir_.File("authorized_keys"), ReadFile(dir_.File("client_key.pub")));
    WriteFile(dir_.File("sshd_config"),
              "HostKey " + dir_.File("host_key") + "\nAuthorizedKeysFile " +
                  dir_.File("authorized_keys") +
                  "\nPermitRootLogin yes\nStrictModes no\nPasswordAuthentication no\n"
                  "KbdInteractiveAuthentication no\nUsePAM no\nPidFile none\n"
                  "ListenAddress 127.0.0.1\n" +
                  AcceptEnv() +
                  // Sessions start with an empty HOME: the login shell's start-up files of
                  // this machine's user (a pyenv rehash that waits on a lock, say) stay out.
                  "SetEnv HOME=" + dir_.path() + "\n");
    port_ = FreePort();
    const Status started = ChildProcess::Start(
        {"/usr/sbin/sshd", "-D", "-e", "-f", dir_.File("sshd_config"), "-p", std::to_string(port_)},
        {},
        [this](const std::string& line) {
          std::lock_guard<std::mutex> lock(mutex_);
          sshd_log_ += line + "\n";
        },
        &sshd_);
    ASSERT_TRUE(started.ok()) << started.message();
    for (int i = 0; i < 1000 && !Accepts(port_); ++i) {
      int code = 0;
      if (sshd_->Poll(&code)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!Accepts(port_)) skip_ = "sshd did not start: " + sshd_log_;
  }
  void TearDown() override {
    if (sshd_) sshd_->Terminate();
  }
  // Debian's sshd_config takes the client's LANG and LC_* variables.
  virtual std::string AcceptEnv() const { return "AcceptEnv LANG LC_*\n"; }

  // Options for a launcher that logs to job.log and reaches the sshd twice.
  SubmitOptions Options(std::vector<std::string> command) {
    SubmitOptions options;
    options.cluster = "ssh";
    options.num_workers = 2;
    options.host_file =
        WriteFile(dir_.File("hosts"), "127.0.0.1:" + std::to_string(port_) +
                                          "\n127.0.0.1:" + std::to_string(port_) + "\n");
    options.log_file = dir_.File("job.log");
    options.command = std::move(command);
    return options;
  }
  // Runs `workers` under `options` to their end (the job log written out).
  Status Run(const SubmitOptions& options, const std::vector<WorkerSpec>& workers) {
    JobLog log(options.log_file);
    std::atomic<bool> stop{false};
    return MakeSshLauncher(options, &log, TestRankOf)->Run(workers, stop);
  }
  // The same, expecting success; the job log.
  std::string RunToTheEnd(const SubmitOptions& options, const std::vector<WorkerSpec>& workers) {
    const Status s = Run(options, workers);
    EXPECT_TRUE(s.ok()) << s.message() << "\n" << ReadFile(options.log_file);
    return ReadFile(options.log_file);
  }
  std::string SshOptions() const {
    return "-i " + dir_.File("client_key") + " -o UserKnownHostsFile=/dev/null";
  }

  TempDir dir_;
  std::string skip_;
  int port_ = 0;
  std::mutex mutex_;
  std::string sshd_log_;  // guarded by mutex_: written by sshd's reader thread
  std::unique_ptr<ChildProcess> sshd_;
};

#define RB_SKIP_WITHOUT_SSHD()                 \
  do {                                         \
    if (!skip_.empty()) GTEST_SKIP() << skip_; \
  } while (0)

TEST_F(SshdFixture, RunsTwoWorkersWithTheirEnvironment) {
  RB_SKIP_WITHOUT_SSHD();
  test::ScopedEnv ssh_options("RINGBOOST_SSH_OPTIONS", SshOptions());
  SubmitOptions options =
      Options({"sh", "-c",
               "echo \"task=$DMLC_TASK_ID uri=$DMLC_TRACKER_URI q=$QUOTED pwd=$(pwd)\"; echo "
               "\"token=$RINGBOOST_JOB_TOKEN carrier=${LC_RINGBOOST_JOB_TOKEN-unset}\""});
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  const std::string log = RunToTheEnd(options, TwoWorkers("QUOTED", "it's \"a\" $HOME;"));
  const std::string rest = " uri=10.1.2.3 q=it's \"a\" $HOME; pwd=" + std::string(cwd) + "\n";
  EXPECT_NE(log.find("[task 0] task=0:tok3n" + rest), std::string::npos) << log;
  EXPECT_NE(log.find("[rank 7] task=1:tok3n" + rest), std::string::npos) << log;
  EXPECT_NE(log.find("[rank 7] token=tok3n carrier=unset\n"), std::string::npos) << log;
  EXPECT_EQ(log.find('\r'), std::string::npos);
}

// The job token reaches the remote worker in no process's command line (ps shows those to every
// user; here both ends are this machine): the worker lists every command line holding it.
TEST_F(SshdFixture, TheTokenIsInNoCommandLine) {
  RB_SKIP_WITHOUT_SSHD();
  test::ScopedEnv ssh_options("RINGBOOST_SSH_OPTIONS", SshOptions());
  // "tok""3n": this command line must not match itself.
  SubmitOptions options = Options(
      {"sh", "-c",
       "n=0; for f in /proc/[0-9]*/cmdline; do if tr '\\0' ' ' < $f 2>/dev/null | grep -q "
       "tok\"\"3n; then n=$((n + 1)); tr '\\0' ' ' < $f; echo; fi; done; echo \"holding: $n\""});
  const std::string log = RunToTheEnd(options, TwoWorkers());
  EXPECT_NE(log.find("[task 0] holding: 0\n"), std::string::npos) << log;
  EXPECT_NE(log.find("[rank 7] holding: 0\n"), std::string::npos) << log;
}

// An ssh server that drops LC_* variables: the worker stops at once, saying what to change.
class SshdDroppingEnvFixture : public SshdFixture {
 protected:
  std::string AcceptEnv() const override { return ""; }
};

TEST_F(SshdDroppingEnvFixture, WorkerStopsNamingTheServerSetting) {
  RB_SKIP_WITHOUT_SSHD();
  test::ScopedEnv ssh_options("RINGBOOST_SSH_OPTIONS", SshOptions());
  SubmitOptions options = Options({"sh", "-c", "echo started"});
  const Status s = Run(options, TwoWorkers());
  EXPECT_NE(s.message().find("failed: exit code 113"), std::string::npos) << s.message();
  const std::string text = ReadFile(options.log_file);
  EXPECT_NE(text.find("the ssh server did not pass LC_RINGBOOST_JOB_TOKEN (the job token) on to "
                      "the worker; let it accept the variable: 'AcceptEnv LC_*' in its "
                      "sshd_config"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("started"), std::string::npos) << text;
}

TEST_F(SshdFixture, FailingWorkerIsNamed) {
  RB_SKIP_WITHOUT_SSHD();
  test::ScopedEnv ssh_options("RINGBOOST_SSH_OPTIONS", SshOptions());
  SubmitOptions options = Options({"sh", "-c", "exit $((3 * ${DMLC_TASK_ID%%:*}))"});
  EXPECT_EQ(Run(options, TwoWorkers()).message(),
            "worker rank 7 (task 1) on 127.0.0.1 failed: exit code 3");
}

TEST_F(SshdFixture, StopEndsTheRemoteWorkers) {
  RB_SKIP_WITHOUT_SSHD();
  test::ScopedEnv ssh_options("RINGBOOST_SSH_OPTIONS", SshOptions());
  SubmitOptions options = Options({"sh", "-c", "echo up; exec sleep 1017"});
  JobLog log(options.log_file);
  Status s = RunStoppedAfterStart(MakeSshLauncher(options, &log, TestRankOf).get(), TwoWorkers(),
                                  options.log_file, "[rank 7] up");
  ASSERT_NE(ReadFile(options.log_file).find("[rank 7] up"), std::string::npos)
      << "the workers never started: " << ReadFile(options.log_file);
  EXPECT_EQ(s.message(), "stopped");
  EXPECT_TRUE(ProcessGone("sleep 1017"));
}

// ---- mpi -------------------------------------------------------------------------------------

#define RB_SKIP_WITHOUT_MPIRUN()                                 \
  do {                                                           \
    if (!InPath("mpirun")) GTEST_SKIP() << "mpirun not in PATH"; \
  } while (0)

SubmitOptions MpiOptions(const TempDir& dir, std::vector<std::string> command) {
  SubmitOptions options;
  options.cluster = "mpi";
  options.num_workers = 2;
  options.log_file = dir.File("job.log");
  options.command = std::move(command);
  return options;
}

// Runs the two workers of TwoWorkers() under mpirun, the log in options.log_file.
Status RunMpi(const SubmitOptions& options, RankOf rank_of = TestRankOf) {
  JobLog log(options.log_file);
  std::atomic<bool> stop{false};
  return MakeMpiLauncher(options, &log, std::move(rank_of))->Run(TwoWorkers(), stop);
}

TEST(MpiLauncher, EachRankGetsItsTaskIdAndTheTrackerEnvironment) {
  RB_SKIP_WITHOUT_MPIRUN();
  TempDir dir;
  SubmitOptions options =
      MpiOptions(dir, {"sh", "-c",
                       "echo task=$DMLC_TASK_ID uri=$DMLC_TRACKER_URI:$DMLC_TRACKER_PORT "
                       "token=$RINGBOOST_JOB_TOKEN attempt=$DMLC_NUM_ATTEMPT"});
  Status s = RunMpi(options);
  ASSERT_TRUE(s.ok()) << s.message() << "\n" << ReadFile(options.log_file);
  const std::string log = ReadFile(options.log_file);
  EXPECT_NE(log.find("[task 0] task=0:tok3n uri=10.1.2.3:9091 token=tok3n attempt=0\n"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("[rank 7] task=1:tok3n uri=10.1.2.3:9091 token=tok3n attempt=0\n"),
            std::string::npos)
      << log;
}

TEST(MpiLauncher, FailingWorkerIsNamed) {
  RB_SKIP_WITHOUT_MPIRUN();
  TempDir dir;
  SubmitOptions options =
      MpiOptions(dir, {"sh", "-c", "[ \"${DMLC_TASK_ID%%:*}\" = 1 ] && exit 3; exit 0"});
  EXPECT_EQ(RunMpi(options).message(), "worker rank 7 (task 1) failed: exit code 3")
      << ReadFile(options.log_file);
}

// A worker's own output that reads like the wrapper's report (task 0 echoes one and succeeds)
// names no failure: the report carries the job's nonce. A task the tracker has not ranked is
// named once ("task 1", not "task 1 (task 1)").
TEST(MpiLauncher, OnlyTheWrapperReportsAFailure) {
  RB_SKIP_WITHOUT_MPIRUN();
  TempDir dir;
  SubmitOptions options =
      MpiOptions(dir, {"sh", "-c",
                       "t=${DMLC_TASK_ID%%:*}; if [ $t = 0 ]; then "
                       "echo 'ringboost-submit: task 0 ended with exit code 9'; "
                       "echo 'ringboost-submit: task 0 ended with exit code 9' >&2; exit 0; fi; "
                       "sleep 1; exit 3"});
  EXPECT_EQ(RunMpi(options).message(), "worker rank 7 (task 1) failed: exit code 3")
      << ReadFile(options.log_file);
  EXPECT_NE(ReadFile(options.log_file).find("[rank 7] ended with exit code 3\n"), std::string::npos)
      << ReadFile(options.log_file);
  options.command = {"sh", "-c", "[ \"${DMLC_TASK_ID%%:*}\" = 1 ] && exit 4; exit 0"};
  EXPECT_EQ(RunMpi(options, [](int) { return -1; }).message(), "worker task 1 failed: exit code 4")
      << ReadFile(options.log_file);
}

// A host file that is a folder or missing is named with the flag before mpirun starts.
TEST(MpiLauncher, HostFileThatCannotBeReadIsNamed) {
  RB_SKIP_WITHOUT_MPIRUN();
  TempDir dir;
  SubmitOptions options = MpiOptions(dir, {"sh", "-c", "exit 0"});
  options.host_file = dir.path();
  EXPECT_EQ(RunMpi(options).message(),
            "--host-file: " + dir.path() + ": is a directory, not a file");
  options.host_file = dir.File("none");
  EXPECT_EQ(RunMpi(options).message().rfind("--host-file: cannot", 0), 0u);
  EXPECT_EQ(ReadFile(options.log_file).find("started"), std::string::npos);
}

TEST(MpiLauncher, StopEndsMpirunAndTheWorkers) {
  RB_SKIP_WITHOUT_MPIRUN();
  TempDir dir;
  SubmitOptions options = MpiOptions(dir, {"sh", "-c", "echo up; exec sleep 1018"});
  JobLog log(options.log_file);
  Status s = RunStoppedAfterStart(MakeMpiLauncher(options, &log, TestRankOf).get(), TwoWorkers(),
                                  options.log_file, "[rank 7] up");
  EXPECT_EQ(s.message(), "stopped");
  EXPECT_TRUE(ProcessGone("sleep 1018"));
}

// Local workers that outnumber the cores get RABIT_SPIN_US=0 (waits sleep at once), unless the
// user set it with --env (or in the environment, which this test's process does not).
TEST(LocalLauncher, SpinIsOffWhenWorkersOutnumberTheCores) {
  ASSERT_EQ(std::getenv("RABIT_SPIN_US"), nullptr);
  SubmitOptions options;
  options.num_workers = UsableCores();
  EXPECT_EQ(SpinPerLocalWorker(options), "");
  options.num_workers = UsableCores() + 1;
  EXPECT_EQ(SpinPerLocalWorker(options), "0");
  options.env.emplace_back("RABIT_SPIN_US", "50");
  EXPECT_EQ(SpinPerLocalWorker(options), "");
}

}  // namespace
}  // namespace ringboost::submit
