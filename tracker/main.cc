// ringboost-submit [options] COMMAND [ARGS...]: starts a job's workers through a launcher and
// serves them the Rabit tracker protocol, as dmlc-submit does (same flags, same environment),
// with a fresh job token that the tracker requires.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <thread>

#include "rabit/tracker.h"
#include "submit.h"

namespace ringboost::submit {
namespace {

std::atomic<bool> g_signalled{false};
std::atomic<int> g_signal{0};

void OnSignal(int sig) {
  g_signal.store(sig);
  g_signalled.store(true);
}

// 128 random bits as hex, from the kernel.
std::string NewJobToken() {
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  unsigned char bytes[16] = {0};
  if (!urandom.read(reinterpret_cast<char*>(bytes), sizeof(bytes))) {
    RB_FAIL("cannot read /dev/urandom for the job token");
  }
  static const char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

// The address other machines reach this one by: the source address of a route outwards (no
// packet is sent), else 127.0.0.1.
std::string GuessHostIp() {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return "127.0.0.1";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(1);
  inet_pton(AF_INET, "10.255.255.255", &addr.sin_addr);
  std::string ip = "127.0.0.1";
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    sockaddr_in local{};
    socklen_t len = sizeof(local);
    char text[INET_ADDRSTRLEN] = {0};
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0 &&
        inet_ntop(AF_INET, &local.sin_addr, text, sizeof(text)) != nullptr) {
      ip = text;
    }
  }
  close(fd);
  return ip;
}

// The tracker's first port to try, and how many to try (a taken port is no error).
constexpr int kFirstPort = 9091;
constexpr int kPortsToTry = 1000;

// Whether the tracker could listen on `port` of `addr`, by binding a socket as it would:
// *in_use for EADDRINUSE (the next port may do), a failure naming --host-ip for any other error
// (an address not of this machine: no port will do).
Status ProbePort(const std::string& host, sockaddr_in addr, int port, bool* in_use) {
  *in_use = false;
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoStatus("socket", "for the tracker");
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  addr.sin_port = htons(static_cast<uint16_t>(port));
  Status s;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (errno == EADDRINUSE) {
      *in_use = true;
    } else {
      s = Status::Fail("--host-ip " + host + ": the tracker cannot listen there (port " +
                       std::to_string(port) + "): " + std::strerror(errno) +
                       "; give an address of this machine that the workers can reach");
    }
  }
  close(fd);
  return s;
}

// The tracker on the first free port from kFirstPort: `host` is resolved once, a port in use
// moves on to the next, any other failure (or a signal) ends the search at once.
Status StartTracker(const SubmitOptions& options, const std::string& host, const std::string& token,
                    JobLog* log, std::unique_ptr<rabit::Tracker>* tracker) {
  in6_addr v6;
  const bool bracketed = host.size() > 2 && host.front() == '[' && host.back() == ']';
  const std::string bare = bracketed ? host.substr(1, host.size() - 2) : host;
  if (inet_pton(AF_INET6, bare.c_str(), &v6) == 1) {
    return Status::Fail("--host-ip " + host +
                        ": IPv6 addresses are not supported (the tracker and the workers speak "
                        "IPv4); give an IPv4 address of this machine, or a name that has one");
  }
  sockaddr_in addr;  // looked up once, not once a port
  Status s = rabit::Resolve(host, 0, &addr);
  if (!s.ok()) {
    return Status::Fail("--host-ip " + host + ": " + s.message() +
                        "; give an address of this machine that the workers can reach");
  }
  rabit::TrackerOptions t;
  t.host = host;
  t.num_workers = options.num_workers;
  t.token = token;
  t.hypercube = options.hypercube;
  t.verbose = options.log_level == "DEBUG";  // where each rank listens, for debugging links
  t.log = [log](const std::string& line) { log->Line(line); };
  for (int port = kFirstPort; port < kFirstPort + kPortsToTry; ++port) {
    if (g_signalled.load()) {
      return Status::Fail("ended by signal " + std::to_string(g_signal.load()) +
                          " while the tracker looked for a port");
    }
    bool in_use = false;
    s = ProbePort(host, addr, port, &in_use);
    if (s.ok() && !in_use) {
      t.port = port;
      const Status created = rabit::Tracker::Create(t, tracker);
      if (created.ok()) return created;
      s = ProbePort(host, addr, port, &in_use);  // taken since the probe, or another failure?
      if (s.ok() && !in_use) s = created;
    }
    if (!s.ok()) return s;
    if (options.log_level == "DEBUG") {
      log->Line("ringboost-submit: port " + std::to_string(port) + " of " + host + " is in use");
    }
  }
  return Status::Fail("the tracker found no free port on " + host + " from " +
                      std::to_string(kFirstPort) + " to " +
                      std::to_string(kFirstPort + kPortsToTry - 1) + ": all in use");
}

std::vector<WorkerSpec> MakeWorkers(const SubmitOptions& options, const rabit::Tracker& tracker,
                                    const std::string& token) {
  std::vector<WorkerSpec> workers(options.num_workers);
  for (int i = 0; i < options.num_workers; ++i) {
    workers[i].task_id = i;
    EnvList& env = workers[i].env;
    for (const auto& kv : tracker.WorkerEnv()) env.push_back(kv);
    env.emplace_back("DMLC_TASK_ID", std::to_string(i) + ":" + token);
    env.emplace_back("DMLC_ROLE", "worker");
    env.emplace_back("DMLC_JOB_CLUSTER", options.cluster);
    env.emplace_back("RINGBOOST_JOB_TOKEN", token);
    // Workers that are restarted find the others waiting for them: recovery, not a new job.
    if (options.cluster == "local" && options.local_num_attempt > 0) {
      env.emplace_back("RABIT_RECOVER", "1");
    }
    // Their output reaches a terminal line by line through here: training progress as lines
    // (src/learner/progress.h), not a live line the relay would hold back.
    if (isatty(STDERR_FILENO) != 0 && std::getenv("RINGBOOST_PROGRESS") == nullptr) {
      env.emplace_back("RINGBOOST_PROGRESS", "lines");
    }
    for (const auto& kv : options.env) env.push_back(kv);
  }
  return workers;
}

std::unique_ptr<Launcher> MakeLauncher(const SubmitOptions& options, JobLog* log, RankOf rank_of) {
  if (options.cluster == "local") return MakeLocalLauncher(options, log, rank_of);
  if (options.cluster == "ssh") return MakeSshLauncher(options, log, rank_of);
  RB_CHECK(options.cluster == "mpi");
  return MakeMpiLauncher(options, log, rank_of);
}

// Watches the job while the launcher runs: a signal, the tracker failing, or workers that do not
// all connect within --connect-timeout set `stop` and say why.
class Watchdog {
 public:
  Watchdog(const SubmitOptions& options, rabit::Tracker* tracker,
           const std::atomic<bool>* tracker_done)
      : thread_([=] { Watch(options, tracker, tracker_done); }) {}
  ~Watchdog() {
    finished_.store(true);
    thread_.join();
  }
  std::atomic<bool>& stop() { return stop_; }
  std::string reason() {
    std::lock_guard<std::mutex> lock(mutex_);
    return reason_;
  }

 private:
  void Stop(const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (reason_.empty()) reason_ = why;
    stop_.store(true);
  }
  void Watch(SubmitOptions options, rabit::Tracker* tracker,
             const std::atomic<bool>* tracker_done) {
    const auto start = std::chrono::steady_clock::now();
    bool connected = false;
    while (!finished_.load()) {
      if (g_signalled.load()) Stop("ended by signal " + std::to_string(g_signal.load()));
      if (!connected && static_cast<int>(tracker->RanksByTask().size()) >= options.num_workers) {
        connected = true;
      }
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!connected && !tracker_done->load() && waited > options.connect_timeout_s) {
        Stop("not all " + std::to_string(options.num_workers) +
             " workers connected to the tracker at " + tracker->host() + ":" +
             std::to_string(tracker->port()) + " within " + options.connect_timeout_given +
             " s (--connect-timeout); ranked so far: " +
             std::to_string(tracker->RanksByTask().size()));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  std::atomic<bool> stop_{false};
  std::atomic<bool> finished_{false};
  std::mutex mutex_;
  std::string reason_;
  std::thread thread_;
};

// kubernetes: the MPIJob is written for kubectl; its workers use the mpi communicator, so there
// is no tracker to run here.
int WriteKubernetesJob(const SubmitOptions& options, JobLog* log) {
  std::atomic<bool> stop{false};
  Status s = MakeKubernetesLauncher(options, log, RankOf())->Run({}, stop);
  if (!s.ok()) log->Line("ringboost-submit: error: " + s.message());
  return s.ok() ? 0 : 1;
}

// The tracker's serving thread, stopped and joined on every way out of RunJob: a joinable
// std::thread destroyed by an exception would end the process in std::terminate.
class TrackerThread {
 public:
  explicit TrackerThread(rabit::Tracker* tracker)
      : tracker_(tracker), thread_([this] {
          status_ = tracker_->Run();
          done_.store(true);
        }) {}
  ~TrackerThread() { Join(); }
  // True once the tracker has served the whole job (or failed).
  const std::atomic<bool>& done() const { return done_; }
  // Stops the tracker and waits for its thread (again: nothing); Run's status is then final.
  void Join() {
    if (!thread_.joinable()) return;
    tracker_->Stop();
    thread_.join();
  }
  const Status& status() const { return status_; }

 private:
  rabit::Tracker* tracker_;
  std::atomic<bool> done_{false};
  Status status_;
  std::thread thread_;  // last: it starts once the members it uses exist
};

// The tracker and a launcher for the workers; the exit code.
int RunTrackedJob(const SubmitOptions& options, JobLog* log) {
  const auto start = std::chrono::steady_clock::now();
  std::string host = options.host_ip;
  if (host.empty() || host == "auto" || host == "ip") {
    host = options.cluster == "local" ? "127.0.0.1" : GuessHostIp();
  }
  const std::string token = NewJobToken();
  std::unique_ptr<rabit::Tracker> tracker;
  if (Status s = StartTracker(options, host, token, log, &tracker); !s.ok()) {
    log->Line("ringboost-submit: error: " + s.message());
    return g_signalled.load() ? 128 + g_signal.load() : 1;
  }
  log->Line("ringboost-submit: tracker on " + host + ":" + std::to_string(tracker->port()) + ", " +
            std::to_string(options.num_workers) + " worker(s), cluster " + options.cluster);
  TrackerThread tracker_thread(tracker.get());
  RankOf rank_of = [&tracker](int task_id) {
    for (const auto& [task, rank] : tracker->RanksByTask()) {
      if (task == std::to_string(task_id)) return rank;
    }
    return -1;
  };
  Status launched;
  std::string stop_reason;
  {
    Watchdog watchdog(options, tracker.get(), &tracker_thread.done());
    auto launcher = MakeLauncher(options, log, rank_of);
    launched = launcher->Run(MakeWorkers(options, *tracker, token), watchdog.stop());
    stop_reason = watchdog.reason();
  }
  // Workers that all exited 0 have shut down at the tracker; give stragglers a moment.
  for (int i = 0; launched.ok() && i < 100 && !tracker_thread.done().load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const bool tracker_finished = tracker_thread.done().load();
  tracker_thread.Join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char took[64];
  std::snprintf(took, sizeof(took), "%.2f s", seconds);
  if (!launched.ok()) {
    log->Line(
        "ringboost-submit: error: " + (stop_reason.empty() ? launched.message() : stop_reason) +
        " (job took " + took + ")");
    return g_signalled.load() ? 128 + g_signal.load() : 1;
  }
  if (!tracker_finished) {
    log->Line(
        "ringboost-submit: warning: the workers exited 0 but not all shut down at the tracker "
        "(" +
        tracker_thread.status().message() + ")");
  }
  log->Line(std::string("ringboost-submit: job done in ") + took);
  return 0;
}

// The job; a --log-file that could not be written whole fails a job that succeeded (the error
// was said on stderr when it happened).
int RunJob(const SubmitOptions& options) {
  JobLog log(options.log_file);
  const int code = options.cluster == "kubernetes" ? WriteKubernetesJob(options, &log)
                                                   : RunTrackedJob(options, &log);
  const Status closed = log.Close();
  return closed.ok() || code != 0 ? code : 1;
}

// The worker command in what CLI11 left over, which starts at the first word that is none of
// ringboost-submit's options: `--` there ends ringboost-submit's options and is dropped (every
// word after it is the command's, verbatim, options included); an option it does not know before
// the command is an error (CLI11's), not a part of the command. From the program on, every word
// is the command's. *ended tells whether `--` came first.
std::vector<std::string> CommandFrom(const std::vector<std::string>& rest, bool* ended) {
  std::vector<std::string> unknown;
  std::size_t i = 0;
  for (; i < rest.size() && rest[i] != "--" && rest[i].size() > 1 && rest[i][0] == '-'; ++i) {
    unknown.push_back(rest[i]);
  }
  // CLI11 names them in the reverse order of its own list of leftovers.
  std::reverse(unknown.begin(), unknown.end());
  if (!unknown.empty()) throw CLI::ExtrasError(unknown);
  *ended = i < rest.size() && rest[i] == "--";
  if (*ended) ++i;
  return std::vector<std::string>(rest.begin() + i, rest.end());
}

int Main(int argc, char** argv) {
  SubmitOptions o;
  CLI::App app{
      "ringboost-submit: start a distributed ringboost (or any Rabit/dmlc) job: the "
      "workers through a launcher, the Rabit tracker here. Flags as dmlc-submit's."};
  app.prefix_command();
  const CLI::IsMember clusters({"local", "ssh", "mpi", "kubernetes"});
  const char* env_cluster = std::getenv("DMLC_SUBMIT_CLUSTER");
  if (env_cluster != nullptr) o.cluster = env_cluster;
  CLI::Option* cluster =
      app.add_option("--cluster", o.cluster,
                     "Where the workers run: local (child processes), ssh (--host-file), mpi "
                     "(mpirun places them), kubernetes (writes an MPIJob). Default: "
                     "$DMLC_SUBMIT_CLUSTER, else local")
          ->check(clusters);
  app.add_option("-n,--num-workers", o.num_workers, "Number of workers")
      ->required()
      ->check(CLI::Range(1, 65536));
  int num_servers = 0;
  app.add_option("-s,--num-servers", num_servers,
                 "Parameter servers (dmlc-submit's); must be 0: ringboost has none");
  app.add_option("-H,--host-file", o.host_file,
                 "ssh: hosts, one `host[:port]` a line; mpi: passed to mpirun --hostfile");
  app.add_option("--host-ip", o.host_ip,
                 "Address of the tracker that workers connect to, IPv4 (default: 127.0.0.1 "
                 "for local, else this machine's outward address)");
  app.add_option("--local-num-attempt", o.local_num_attempt,
                 "local: restarts allowed per failing worker (same task id, so the same rank)")
      ->check(CLI::Range(0, 1000));
  app.add_option("--log-level", o.log_level, "INFO or DEBUG")
      ->check(CLI::IsMember({"INFO", "DEBUG"}));
  app.add_option("--log-file", o.log_file,
                 "Also append the job's log to this file (a failure to write it fails the job)");
  std::vector<std::string> env;
  app.add_option("--env", env,
                 "K=V set for every worker (repeatable, one K=V each); not the variables "
                 "ringboost-submit sets itself (DMLC_TASK_ID, RINGBOOST_JOB_TOKEN, ...)")
      ->allow_extra_args(false);  // one K=V each: the worker command may follow
  app.add_option("--jobname", o.jobname,
                 "Job name (kubernetes: the MPIJob's name; its pods are NAME-worker-I)");
  app.add_option("--worker-cores", o.worker_cores,
                 "Cores per worker (kubernetes: cpu request and limit)")
      ->check(CLI::Range(1, 4096));
  app.add_option(
      "--worker-memory", o.worker_memory,
      "Memory per worker, e.g. 4g or 4Gi (kubernetes: memory request and limit; k, m, g, "
      "t as dmlc's: binary; Ki, Mi, Gi, Ti; M, G, T decimal; not K)");
  // The flags below are the kubernetes launcher's; it checks their values (naming the flag).
  app.add_option("--image", o.image,
                 "kubernetes: the container image (deploy/Dockerfile); default $RINGBOOST_IMAGE");
  app.add_option("--slots-per-worker", o.slots_per_worker,
                 "kubernetes: MPI ranks per worker pod (default 1); mpirun runs N*S ranks");
  app.add_option("--gpus-per-worker", o.gpus_per_worker,
                 "kubernetes: nvidia.com/gpu per worker pod (default 0)");
  app.add_option("--namespace", o.k8s_namespace,
                 "kubernetes: the MPIJob's namespace (default: default)");
  app.add_option("--volume", o.volume,
                 "kubernetes: CLAIM:PATH, a ReadWriteMany PersistentVolumeClaim mounted at PATH "
                 "in every pod, the working directory (config, data, checkpoint_dir)");
  app.add_option("-o,--output", o.output,
                 "kubernetes: where to write the MPIJob (default JOBNAME-mpijob.yaml; - for "
                 "stdout)");
  app.add_flag("--hypercube", o.hypercube,
               "Also link the workers (ringboost workers only) in a hypercube for the recursive "
               "halving and doubling collectives (rabit_algorithm=halving, and auto where the "
               "cost model picks them); off: more links to set up, see docs/collective.md");
  app.add_option("--connect-timeout", o.connect_timeout_given,
                 "Seconds for all workers to reach the tracker before the job ends (0.1 to "
                 "10000000; default 600)");
  try {
    app.parse(argc, argv);
    // CLI11 checks the flag's value only; a default from the environment is checked here.
    if (cluster->count() == 0 && env_cluster != nullptr && !clusters(o.cluster).empty()) {
      throw CLI::ValidationError("--cluster (default $DMLC_SUBMIT_CLUSTER)",
                                 "'" + o.cluster + "' not in {local,ssh,mpi,kubernetes}");
    }
    o.command = CommandFrom(app.remaining(), &o.options_ended);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (num_servers != 0) {
    std::fprintf(stderr,
                 "ringboost-submit: error: --num-servers %d: ringboost has no parameter "
                 "servers; allowed: 0\n",
                 num_servers);
    return 2;
  }
  for (const std::string& kv : env) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "ringboost-submit: error: --env %s: must be KEY=VALUE\n", kv.c_str());
      return 2;
    }
    o.env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  Status checked = CheckEnvNames(o.env);
  if (checked.ok()) checked = ParseConnectTimeout(o.connect_timeout_given, &o.connect_timeout_s);
  if (!checked.ok()) {
    std::fprintf(stderr, "ringboost-submit: error: %s\n", checked.message().c_str());
    return 2;
  }
  if (o.command.empty()) {
    std::fprintf(stderr,
                 "ringboost-submit: error: no COMMAND to run (ringboost-submit "
                 "[options] COMMAND [ARGS...]; --help)\n");
    return 2;
  }
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  signal(SIGPIPE, SIG_IGN);
  return RunJob(o);
}

}  // namespace
}  // namespace ringboost::submit

int main(int argc, char** argv) {
  try {
    return ringboost::submit::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ringboost-submit: error: %s\n", e.what());
    return 1;
  }
}
