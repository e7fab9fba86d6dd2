// ringboost-submit: the dmlc-submit-style job starter. main.cc parses the command line, starts
// the tracker (src/rabit/tracker.h) with a fresh job token, and hands the workers to one
// launcher (local, ssh, mpi, kubernetes), which starts them and reports how they ended.
#pragma once

#include <atomic>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace ringboost::submit {

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct SubmitOptions {
  std::string cluster = "local";  // local | ssh | mpi | kubernetes
  int num_workers = 0;
  std::string host_file;      // ssh: host[:port] a line; mpi: passed to mpirun --hostfile
  std::string host_ip;        // tracker address ("" = pick one)
  int local_num_attempt = 0;  // restarts allowed per worker (local launcher)
  std::string log_level = "INFO";
  std::string log_file;
  EnvList env;  // --env K=V, for every worker
  // kubernetes (an MPIJob for the Kubeflow MPI Operator; see kubernetes_launcher.cc)
  std::string jobname = "ringboost";  // the MPIJob's name; pods are <jobname>-worker-<i>
  int worker_cores = 1;               // cpu request and limit per worker
  std::string worker_memory = "1g";   // memory request and limit per worker
  std::string image;                  // container image ("" = $RINGBOOST_IMAGE, else an error)
  int slots_per_worker = 1;           // MPI ranks per worker pod (the hostfile's slots=)
  int gpus_per_worker = 0;            // nvidia.com/gpu per worker
  std::string k8s_namespace = "default";
  std::string volume;      // CLAIM:PATH, a PersistentVolumeClaim mounted at PATH ("" = none)
  std::string output;      // the manifest's path ("" = <jobname>-mpijob.yaml, "-" = stdout)
  bool hypercube = false;  // --hypercube: TrackerOptions::hypercube
  double connect_timeout_s = 600;  // a worker not connected to the tracker by then ends the job
  std::string connect_timeout_given = "600";  // --connect-timeout as written, for messages
  std::vector<std::string> command;           // COMMAND [ARGS...]
  bool options_ended = false;                 // `--` came before the command: every word is its own
};

// One worker to start: its task id and its whole environment additions (DMLC_TRACKER_URI,
// DMLC_TRACKER_PORT, DMLC_TASK_ID=<i>:<token>, DMLC_ROLE, DMLC_NUM_WORKER, DMLC_JOB_CLUSTER,
// RINGBOOST_JOB_TOKEN, then --env). Launchers add DMLC_NUM_ATTEMPT per start.
struct WorkerSpec {
  int task_id = 0;
  EnvList env;
};

// The variables ringboost-submit sets itself (the WorkerSpec's, the launchers' and the ssh
// launcher's token carrier): --env must not set them, or a worker would join another job, take
// another's task id, or carry the token on a command line (ssh).
constexpr const char* kLauncherVariables[] = {"DMLC_TRACKER_URI",
                                              "DMLC_TRACKER_PORT",
                                              "DMLC_TASK_ID",
                                              "DMLC_ROLE",
                                              "DMLC_NUM_WORKER",
                                              "DMLC_JOB_CLUSTER",
                                              "DMLC_NUM_ATTEMPT",
                                              "DMLC_NODE_HOST",
                                              "RINGBOOST_JOB_TOKEN",
                                              "LC_RINGBOOST_JOB_TOKEN",
                                              "RINGBOOST_TASK_ID_SUFFIX"};

// Fails when a --env name is one of kLauncherVariables, naming the option and the whole list.
Status CheckEnvNames(const EnvList& env);

// --connect-timeout: a decimal number of seconds from 0.1 to 10000000 (not nan, not inf); fails
// naming the option and the range.
Status ParseConnectTimeout(const std::string& text, double* seconds);

// Lines of the job's log, each also appended to --log-file when given; thread-safe. The first
// failure to write the file is said on stderr at once and kept: the file gets no more lines,
// and Close() returns it, so that the job fails rather than end 0 with its log cut short.
class JobLog {
 public:
  explicit JobLog(const std::string& path);
  ~JobLog();  // closes the file unless Close() did
  // ringboost-submit's own messages (and the tracker's): stderr.
  void Line(const std::string& line);
  // A worker's output line, already prefixed "[rank R] ": stdout.
  void WorkerLine(const std::string& line);
  // Closes --log-file: the first failure of a write, a flush or the close, naming the file.
  [[nodiscard]] Status Close();

 private:
  void Write(std::FILE* stream, const std::string& line);
  void FileFailed(const char* call);  // with mutex_ held; errno from `call`
  std::mutex mutex_;
  std::string path_;
  std::FILE* file_ = nullptr;
  Status file_status_;  // the first failure of the file
};

// Tells launchers a worker's rank once the tracker has assigned it (-1 before), for the prefix
// of its output lines.
using RankOf = std::function<int(int task_id)>;

// "rank R" once the tracker has ranked the task, "task T" before (or without a tracker).
std::string WorkerName(const RankOf& rank_of, int task_id);
// WorkerName with the task id added to a rank: "rank R (task T)", or "task T".
std::string FullName(const RankOf& rank_of, int task_id);

class Launcher {
 public:
  virtual ~Launcher() = default;
  // Starts every worker and returns when all have ended: OK when each exited 0 (after at most
  // its allowed restarts), else a failure naming the worker and how it ended. Returns soon
  // after *stop becomes true (Ctrl-C, SIGTERM, the tracker failing), having ended the workers.
  virtual Status Run(const std::vector<WorkerSpec>& workers, const std::atomic<bool>& stop) = 0;
};

std::unique_ptr<Launcher> MakeLocalLauncher(const SubmitOptions& options, JobLog* log,
                                            RankOf rank_of);
std::unique_ptr<Launcher> MakeSshLauncher(const SubmitOptions& options, JobLog* log,
                                          RankOf rank_of);
std::unique_ptr<Launcher> MakeMpiLauncher(const SubmitOptions& options, JobLog* log,
                                          RankOf rank_of);
// Whether the user set environment variable `variable` for the workers (in this process's
// environment, which they inherit, or with --env).
bool UserSets(const SubmitOptions& options, const char* variable);
// The cores this process may run on (its CPU affinity, as OpenMP counts them).
int UsableCores();
// OMP_NUM_THREADS for each of --num-workers workers sharing this machine: cores / workers, at
// least 1; "" when the user chose (OMP_NUM_THREADS in the environment or in --env).
std::string ThreadsPerLocalWorker(const SubmitOptions& options);
// RABIT_SPIN_US for local workers: "0" when they outnumber the usable cores and the user did not
// set it (environment or --env), else "" (the workers' default).
std::string SpinPerLocalWorker(const SubmitOptions& options);

// The worker command of a Kubernetes job (kubernetes_command.cc): fails when ringboost-submit's
// own options follow the command (they would become its arguments; not after `--`), naming the
// fix; appends a warning for a program path of this machine and for relative paths without
// --volume.
Status CheckKubernetesCommand(const SubmitOptions& options, std::vector<std::string>* warnings);

std::unique_ptr<Launcher> MakeKubernetesLauncher(const SubmitOptions& options, JobLog* log,
                                                 RankOf rank_of);

}  // namespace ringboost::submit
