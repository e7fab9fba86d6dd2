// An in-process ringboost tracker serving on 127.0.0.1 from a thread, for the tcp tests.
#pragma once

#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "rabit/tracker.h"

namespace ringboost::rabit::test {

class TrackerThread {
 public:
  explicit TrackerThread(int num_workers, std::string token = "") {
    TrackerOptions options;
    options.num_workers = num_workers;
    options.token = std::move(token);
    options.io_timeout_s = 10;
    options.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex_);
      log_ += line + "\n";
    };
    ThrowIfError(Tracker::Create(options, &tracker_));
    thread_ = std::thread([this] { status_ = tracker_->Run(); });
  }
  ~TrackerThread() { Finish(/*stop=*/true); }

  int port() const { return tracker_->port(); }
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

}  // namespace ringboost::rabit::test
