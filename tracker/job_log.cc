#include <cstring>

#include "submit.h"

namespace ringboost::submit {

JobLog::JobLog(const std::string& path) {
  if (path.empty()) return;
  file_ = std::fopen(path.c_str(), "a");
  if (file_ == nullptr) {
    RB_FAIL("--log-file " << path << ": cannot open for appending: " << std::strerror(errno));
  }
}

JobLog::~JobLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void JobLog::Line(const std::string& line) { Write(stderr, line); }

void JobLog::WorkerLine(const std::string& line) { Write(stdout, line); }

void JobLog::Write(std::FILE* stream, const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::fprintf(stream, "%s\n", line.c_str());
  std::fflush(stream);
  if (file_ != nullptr) {
    std::fprintf(file_, "%s\n", line.c_str());
    std::fflush(file_);
  }
}

std::string WorkerName(const RankOf& rank_of, int task_id) {
  const int rank = rank_of ? rank_of(task_id) : -1;
  return rank >= 0 ? "rank " + std::to_string(rank) : "task " + std::to_string(task_id);
}

}  // namespace ringboost::submit
