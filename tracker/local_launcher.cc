// The local launcher: every worker a child process of ringboost-submit on this machine. A worker
// that exits non-zero is started again with the same task id (so the tracker gives it its old
// rank) and DMLC_NUM_ATTEMPT raised, up to --local-num-attempt restarts; beyond that the job
// ends: the other workers are terminated and Run names the worker.
//
// Each worker gets its share of the cores, OMP_NUM_THREADS = cores / workers (at least 1), unless
// the user chose (OMP_NUM_THREADS in the environment or --env; an nthread in the worker's config
// or arguments wins over it in ringboost): with every worker starting a thread per core, OpenMP's
// spinning threads crowd each other out (the README's 4-worker example on 2 cores ran over a
// hundred times slower than one process). The Kubernetes launcher does the same per slot.
//
// With more workers than cores it also sets RABIT_SPIN_US=0 (unless the user set it): a worker
// waiting on a link then sleeps in poll() at once instead of spinning 50 us, which on an
// oversubscribed host only takes the core from the worker it waits for (docs/collective.md).
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "process.h"

namespace ringboost::submit {
namespace {

// "[rank R] ", or "[task T] " before the tracker has ranked it.
std::string Prefix(const RankOf& rank_of, int task_id) {
  return "[" + WorkerName(rank_of, task_id) + "] ";
}

class LocalLauncher : public Launcher {
 public:
  LocalLauncher(const SubmitOptions& options, JobLog* log, RankOf rank_of)
      : options_(options),
        log_(log),
        rank_of_(std::move(rank_of)),
        threads_(ThreadsPerLocalWorker(options)),
        spin_(SpinPerLocalWorker(options)),
        listen_on_loopback_(!UserSets(options, "RABIT_LISTEN_HOST")) {
    if (!threads_.empty()) {
      log_->Line("ringboost-submit: " + std::to_string(options.num_workers) +
                 " local worker(s) on " + std::to_string(UsableCores()) +
                 " core(s): OMP_NUM_THREADS=" + threads_ +
                 " each (nthread=N or --env OMP_NUM_THREADS=N chooses otherwise)");
    }
    if (!spin_.empty()) {
      log_->Line("ringboost-submit: more local workers than cores: RABIT_SPIN_US=" + spin_ +
                 " (waits sleep at once; --env RABIT_SPIN_US=N chooses otherwise)");
    }
  }

  Status Run(const std::vector<WorkerSpec>& workers, const std::atomic<bool>& stop) override {
    std::vector<Slot> slots(workers.size());
    for (std::size_t i = 0; i < workers.size(); ++i) {
      slots[i].spec = &workers[i];
      Status s = StartSlot(&slots[i]);
      if (!s.ok()) return EndAll(&slots, s);
    }
    for (;;) {
      if (stop.load()) return EndAll(&slots, Status::Fail("stopped"));
      bool all_done = true;
      for (Slot& slot : slots) {
        if (slot.done) continue;
        int code = 0;
        if (!slot.child->Poll(&code)) {
          all_done = false;
          continue;
        }
        if (code == 0) {
          slot.done = true;
          continue;
        }
        const std::string who = Prefix(rank_of_, slot.spec->task_id);
        if (slot.attempt >= options_.local_num_attempt) {
          return EndAll(&slots, Status::Fail("worker " + FullName(rank_of_, slot.spec->task_id) +
                                             " failed: " + ChildProcess::Describe(code) +
                                             ", after " + std::to_string(slot.attempt + 1) +
                                             " attempt(s) (--local-num-attempt " +
                                             std::to_string(options_.local_num_attempt) + ")"));
        }
        ++slot.attempt;
        log_->Line(who + "ended with " + ChildProcess::Describe(code) + "; starting it again (" +
                   "attempt " + std::to_string(slot.attempt + 1) + " of " +
                   std::to_string(options_.local_num_attempt + 1) + ")");
        Status s = StartSlot(&slot);
        if (!s.ok()) return EndAll(&slots, s);
        all_done = false;
      }
      if (all_done) return Status::OK();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

 private:
  struct Slot {
    const WorkerSpec* spec = nullptr;
    int attempt = 0;
    bool done = false;
    std::unique_ptr<ChildProcess> child;
  };

  Status StartSlot(Slot* slot) {
    EnvList env = slot->spec->env;
    env.emplace_back("DMLC_NUM_ATTEMPT", std::to_string(slot->attempt));
    if (!threads_.empty()) env.emplace_back("OMP_NUM_THREADS", threads_);
    if (!spin_.empty()) env.emplace_back("RABIT_SPIN_US", spin_);
    // Workers that reach the tracker at a loopback address (the default, 127.0.0.1) run on its
    // machine and reach each other there too: their peer ports need not listen on the others,
    // where strangers could knock. (A wrapper may start a "local" worker elsewhere, in a network
    // namespace of the simulated cluster: then the tracker's address is not a loopback one.)
    for (const auto& [key, value] : slot->spec->env) {
      if (key == "DMLC_TRACKER_URI" && listen_on_loopback_ && value.rfind("127.", 0) == 0) {
        env.emplace_back("RABIT_LISTEN_HOST", value);
      }
    }
    const int task = slot->spec->task_id;
    auto on_line = [this, task](const std::string& line) {
      log_->WorkerLine(Prefix(rank_of_, task) + line);
    };
    slot->child.reset();
    return ChildProcess::Start(options_.command, env, on_line, &slot->child)
        .Wrap("task " + std::to_string(task));
  }

  // Terminates every worker still running and returns `why`.
  Status EndAll(std::vector<Slot>* slots, Status why) {
    std::vector<ChildProcess*> children;
    for (Slot& slot : *slots) {
      if (slot.child) children.push_back(slot.child.get());
    }
    ChildProcess::TerminateAll(children);
    return why;
  }

  SubmitOptions options_;
  JobLog* log_;
  RankOf rank_of_;
  std::string threads_;      // OMP_NUM_THREADS for every worker ("" = the user's own)
  std::string spin_;         // RABIT_SPIN_US for every worker ("" = the user's own or the default)
  bool listen_on_loopback_;  // RABIT_LISTEN_HOST: the tracker's loopback address, unless the user's
};

}  // namespace

int UsableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

bool UserSets(const SubmitOptions& options, const char* variable) {
  if (std::getenv(variable) != nullptr) return true;
  for (const auto& kv : options.env) {
    if (kv.first == variable) return true;
  }
  return false;
}

std::string ThreadsPerLocalWorker(const SubmitOptions& options) {
  if (UserSets(options, "OMP_NUM_THREADS")) return "";
  return std::to_string(std::max(1, UsableCores() / std::max(1, options.num_workers)));
}

std::string SpinPerLocalWorker(const SubmitOptions& options) {
  if (UserSets(options, "RABIT_SPIN_US")) return "";
  return options.num_workers > UsableCores() ? "0" : "";
}

std::unique_ptr<Launcher> MakeLocalLauncher(const SubmitOptions& options, JobLog* log,
                                            RankOf rank_of) {
  return std::make_unique<LocalLauncher>(options, log, std::move(rank_of));
}

}  // namespace ringboost::submit
