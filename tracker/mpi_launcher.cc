// The mpi launcher (dmlc-submit --cluster mpi): ONE `mpirun` places every worker; MPI only
// starts the processes, the workers talk TCP through the tracker (DMLC_TRACKER_URI makes
// communicator=auto pick tcp even under mpirun). mpirun gives every rank the same environment,
// so the per-task DMLC_TASK_ID is made on the spot by a small shell wrapper from the MPI rank
// (OMPI_COMM_WORLD_RANK, or PMI_RANK for MPICH) and the job token's suffix:
//   mpirun -n N [--hostfile F] --oversubscribe --tag-output -x K ...
//     sh -c 'DMLC_TASK_ID=<rank>$RINGBOOST_TASK_ID_SUFFIX ... "$@" ...' ringboost-worker COMMAND
// The variables go into mpirun's own environment and are forwarded by name (`-x K`), so the job
// token never shows in `ps`. The wrapper does not exec: when the command fails it prints
// "ringboost-submit[NONCE]: task T ended with exit code C" on stderr, which names the task in
// Run's failure (mpirun's own report does not say which rank failed); NONCE, random for each
// job, keeps a worker's own output (an echoed log line) from passing for that report. mpirun
// signals each rank's process group, so ending mpirun ends the wrapper and the worker together.
// Open MPI is the target; with another mpirun (MPICH's Hydra passes the whole environment
// by default) the Open MPI flags are left out and output lines are prefixed "[mpirun] ".
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include "common/file_io.h"
#include "process.h"

namespace ringboost::submit {
namespace {

constexpr char kSuffixVariable[] = "RINGBOOST_TASK_ID_SUFFIX";

// "ringboost-submit[NONCE]: task ", NONCE 16 random hex digits: the start of the wrapper's
// failure report.
std::string MakeFailureMarker() {
  std::random_device random;
  char nonce[17];
  std::snprintf(nonce, sizeof(nonce), "%08x%08x", random(), random());
  return std::string("ringboost-submit[") + nonce + "]: task ";
}

// Sets DMLC_TASK_ID from the MPI rank, runs the command, and reports a failure by task id
// (`marker` + "T ended with exit code C").
std::string Wrapper(const std::string& marker) {
  return "r=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}; DMLC_TASK_ID=$r$RINGBOOST_TASK_ID_SUFFIX; "
         "export DMLC_TASK_ID; \"$@\"; c=$?; "
         "[ $c -eq 0 ] || echo \"" +
         marker + "$r ended with exit code $c\" >&2; exit $c";
}

// Parses Open MPI's --tag-output tag "[JOB,RANK]<stdout>:" at `pos`; on success sets *rank and
// *end (just past the tag).
bool ParseTag(const std::string& line, std::size_t pos, int* rank, std::size_t* end) {
  std::size_t i = pos + 1;
  auto digits = [&](long* value) {
    const std::size_t start = i;
    *value = 0;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9' && i - start < 9) {
      *value = *value * 10 + (line[i++] - '0');
    }
    return i > start;
  };
  long job = 0, value = 0;
  if (pos >= line.size() || line[pos] != '[' || !digits(&job)) return false;
  if (i >= line.size() || line[i++] != ',' || !digits(&value)) return false;
  for (const char* stream : {"]<stdout>:", "]<stderr>:"}) {
    if (line.compare(i, std::char_traits<char>::length(stream), stream) == 0) {
      *rank = static_cast<int>(value);
      *end = i + std::char_traits<char>::length(stream);
      return true;
    }
  }
  return false;
}

// Splits one line of mpirun's output into (rank, text) pieces: Open MPI starts each piece of
// a rank's output with its tag but does not end a partial line, so tags may follow one another
// within a line. Text before the first tag is mpirun's own (rank -1).
std::vector<std::pair<int, std::string>> SplitTagged(const std::string& line) {
  std::vector<std::pair<int, std::string>> pieces = {{-1, ""}};
  for (std::size_t pos = 0; pos < line.size();) {
    int rank = 0;
    std::size_t end = 0;
    if (line[pos] == '[' && ParseTag(line, pos, &rank, &end)) {
      pieces.emplace_back(rank, "");
      pos = end;
    } else {
      pieces.back().second += line[pos++];
    }
  }
  if (pieces.front().second.empty() && pieces.size() > 1) pieces.erase(pieces.begin());
  return pieces;
}

// The environment all ranks share: task 0's without DMLC_TASK_ID, and the suffix that follows
// the task id in DMLC_TASK_ID ("i:TOKEN" -> ":TOKEN"). Fails when the workers differ otherwise.
Status SharedEnvironment(const std::vector<WorkerSpec>& workers, EnvList* env) {
  std::string suffix;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    if (workers[i].task_id != static_cast<int>(i)) {
      return Status::Fail("mpi: task ids must be 0..N-1 in order (they are the MPI ranks)");
    }
    EnvList rest;
    for (const auto& kv : workers[i].env) {
      if (kv.first != "DMLC_TASK_ID") {
        rest.push_back(kv);
      } else if (i == 0 && kv.second.find(':') != std::string::npos) {
        suffix = kv.second.substr(kv.second.find(':'));
      }
    }
    if (i == 0) *env = rest;
    if (rest != *env) {
      return Status::Fail(
          "mpi: workers differ in more than DMLC_TASK_ID, but mpirun gives every "
          "rank one environment");
    }
  }
  env->emplace_back("DMLC_NUM_ATTEMPT", "0");
  env->emplace_back(kSuffixVariable, suffix);
  return Status::OK();
}

// True when `mpirun --version` says Open MPI; a failure when mpirun cannot be run.
Status IsOpenMpi(bool* open_mpi) {
  std::mutex mutex;
  std::string text;
  std::unique_ptr<ChildProcess> child;
  Status s = ChildProcess::Start(
      {"mpirun", "--version"}, {},
      [&](const std::string& line) {
        std::lock_guard<std::mutex> lock(mutex);
        text += line + "\n";
      },
      &child);
  if (!s.ok()) return s.Wrap("mpirun --version");
  const int code = child->Wait();
  if (code == 127) {
    return Status::Fail(
        "--cluster mpi: cannot run mpirun (not in PATH?): install Open MPI or use "
        "--cluster local or ssh");
  }
  *open_mpi =
      text.find("Open MPI") != std::string::npos || text.find("OpenRTE") != std::string::npos;
  return Status::OK();
}

class MpiLauncher : public Launcher {
 public:
  MpiLauncher(const SubmitOptions& options, JobLog* log, RankOf rank_of)
      : options_(options), log_(log), rank_of_(std::move(rank_of)) {}

  Status Run(const std::vector<WorkerSpec>& workers, const std::atomic<bool>& stop) override {
    if (options_.command.empty()) return Status::Fail("no worker command given");
    if (workers.empty()) return Status::OK();
    if (!options_.host_file.empty()) {  // mpirun's own message for a folder or a missing file
      try {                             // names neither the flag nor the cause
        ReadWholeFile(options_.host_file);
      } catch (const Error& e) {
        return Status::Fail(std::string("--host-file: ") + e.what());
      }
    }
    EnvList env;
    Status s = SharedEnvironment(workers, &env);
    if (!s.ok()) return s;
    bool open_mpi = false;
    s = IsOpenMpi(&open_mpi);
    if (!s.ok()) return s;
    // Without a host file every rank runs here: each gets its share of the cores, as local ones.
    const std::string threads = ThreadsPerLocalWorker(options_);
    if (options_.host_file.empty() && !threads.empty())
      env.emplace_back("OMP_NUM_THREADS", threads);
    std::vector<std::string> argv = Argv(static_cast<int>(workers.size()), env, open_mpi);
    if (open_mpi && geteuid() == 0) {  // Open MPI refuses root unless told twice
      env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT", "1");
      env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    }
    std::unique_ptr<ChildProcess> mpirun;
    s = ChildProcess::Start(
        argv, env, [this](const std::string& line) { OnLine(line); }, &mpirun);
    if (!s.ok()) return s.Wrap("mpirun");
    log_->Line("started " + std::to_string(workers.size()) + " workers with mpirun (pid " +
               std::to_string(mpirun->pid()) + ")");
    for (;;) {
      int code = 0;
      if (stop.load()) {
        mpirun->Terminate();
        return Status::Fail("stopped");
      }
      if (mpirun->Poll(&code)) return code == 0 ? Status::OK() : Failure(code);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

 private:
  std::vector<std::string> Argv(int num_workers, const EnvList& env, bool open_mpi) const {
    std::vector<std::string> argv = {"mpirun", "-n", std::to_string(num_workers)};
    if (!options_.host_file.empty()) {
      argv.push_back("--hostfile");
      argv.push_back(options_.host_file);
    }
    if (open_mpi) {
      // --num-workers is the user's choice, not bounded by MPI's slot count.
      for (const char* flag : {"--oversubscribe", "--tag-output"}) argv.push_back(flag);
      for (const auto& kv : env) {
        argv.push_back("-x");
        argv.push_back(kv.first);  // its value comes from mpirun's environment
      }
    }
    for (const std::string& part : {std::string("sh"), std::string("-c"), Wrapper(marker_),
                                    std::string("ringboost-worker")}) {
      argv.push_back(part);
    }
    argv.insert(argv.end(), options_.command.begin(), options_.command.end());
    return argv;
  }

  // Called from the reader thread: prefixes each rank's output, remembers the first failure.
  void OnLine(const std::string& line) {
    for (const auto& [task, text] : SplitTagged(line)) {
      if (task < 0) {
        if (!text.empty()) log_->Line("[mpirun] " + text);
        continue;
      }
      if (text.compare(0, marker_.size(), marker_) != 0) {
        log_->WorkerLine("[" + WorkerName(rank_of_, task) + "] " + text);
        continue;
      }
      const auto code = text.rfind(' ');
      log_->WorkerLine("[" + WorkerName(rank_of_, task) + "] ended with " +
                       text.substr(text.find(" exit code ") + 1));
      std::lock_guard<std::mutex> lock(mutex_);
      if (failed_task_ < 0) {
        failed_task_ = task;
        failed_code_ = std::atoi(text.c_str() + code + 1);
      }
    }
  }

  Status Failure(int mpirun_code) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failed_task_ < 0) {
      return Status::Fail("mpirun failed: " + ChildProcess::Describe(mpirun_code) +
                          " (see its output above)");
    }
    return Status::Fail("worker " + FullName(rank_of_, failed_task_) +
                        " failed: " + ChildProcess::Describe(failed_code_));
  }

  SubmitOptions options_;
  JobLog* log_;
  RankOf rank_of_;
  const std::string marker_ = MakeFailureMarker();
  std::mutex mutex_;
  int failed_task_ = -1;  // guarded by mutex_
  int failed_code_ = 0;
};

}  // namespace

std::unique_ptr<Launcher> MakeMpiLauncher(const SubmitOptions& options, JobLog* log,
                                          RankOf rank_of) {
  return std::make_unique<MpiLauncher>(options, log, std::move(rank_of));
}

}  // namespace ringboost::submit
