// An in-process ringboost tracker serving on 127.0.0.1 from a thread, for the tcp tests.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "rabit/communicator.h"
#include "rabit/tracker.h"

namespace ringboost::rabit::test {

class TrackerThread {
 public:
  // `tweak` may change the options before the tracker starts; `on_line` sees each log line on
  // the tracker's thread as it is written (tests act at a given moment of the link-up).
  explicit TrackerThread(int num_workers, std::string token = "",
                         const std::function<void(TrackerOptions*)>& tweak = {},
                         std::function<void(const std::string&)> on_line = {}) {
    TrackerOptions options;
    options.num_workers = num_workers;
    options.token = std::move(token);
    options.io_timeout_s = 10;
    options.log = [this, on_line = std::move(on_line)](const std::string& line) {
      if (on_line) on_line(line);
      std::lock_guard<std::mutex> lock(mutex_);
      log_ += line + "\n";
    };
    if (tweak) tweak(&options);
    ThrowIfError(Tracker::Create(options, &tracker_));
    thread_ = std::thread([this] { status_ = tracker_->Run(); });
  }
  // A tracker stopped early ends with whatever status it had; the test has looked already.
  ~TrackerThread() { static_cast<void>(Finish(/*stop=*/true)); }

  int port() const { return tracker_->port(); }
  const Tracker& tracker() const { return *tracker_; }
  // The key=value settings a worker with this task id needs.
  std::vector<std::pair<std::string, std::string>> WorkerArgs(int task_id) const {
    return {{"DMLC_TRACKER_URI", "127.0.0.1"},
            {"DMLC_TRACKER_PORT", std::to_string(port())},
            {"DMLC_TASK_ID", std::to_string(task_id)},
            {"DMLC_NUM_WORKER", std::to_string(num_workers())}};
  }
  int num_workers() const {
    for (const auto& [k, v] : tracker_->WorkerEnv()) {
      if (k == "DMLC_NUM_WORKER") return std::stoi(v);
    }
    return 0;
  }
  // Waits for Run() to return (after Stop() when `stop`); its status.
  Status Finish(bool stop) {
    if (thread_.joinable()) {
      if (stop) tracker_->Stop();
      thread_.join();
    }
    return status_;
  }
  std::string log() {
    std::lock_guard<std::mutex> lock(mutex_);
    return log_;
  }

 private:
  std::unique_ptr<Tracker> tracker_;
  std::thread thread_;
  Status status_;
  std::mutex mutex_;
  std::string log_;
};

using Args = std::vector<std::pair<std::string, std::string>>;
using WorkerFn = std::function<std::string(Communicator*)>;

// Runs `fn` on n tcp worker threads under `tracker` (worker i is task i, with `extra` and
// per_worker[i] settings); each returns "" or what went wrong (an exception's message
// included). Every worker shuts down after fn.
inline std::vector<std::string> RunWorkers(TrackerThread* tracker, int n, const Args& extra,
                                           const WorkerFn& fn,
                                           const std::vector<Args>& per_worker = {}) {
  std::vector<std::string> results(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      try {
        CommunicatorConfig config;
        config.backend = "tcp";
        config.args = tracker->WorkerArgs(i);
        config.args.insert(config.args.end(), extra.begin(), extra.end());
        if (!per_worker.empty()) {
          config.args.insert(config.args.end(), per_worker[i].begin(), per_worker[i].end());
        }
        auto comm = MakeCommunicator(config);
        results[i] = fn(comm.get());
        ThrowIfError(comm->Shutdown());
      } catch (const std::exception& e) {
        results[i] = std::string("error: ") + e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace ringboost::rabit::test
