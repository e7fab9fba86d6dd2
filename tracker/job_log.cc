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

// The line's bytes as they are, NUL bytes and all (a worker's output is relayed, not parsed).
void JobLog::Write(std::FILE* stream, const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::FILE* out : {stream, file_}) {
    if (out == nullptr) continue;
    std::fwrite(line.data(), 1, line.size(), out);
    std::fputc('\n', out);
    std::fflush(out);
  }
}

std::string WorkerName(const RankOf& rank_of, int task_id) {
  const int rank = rank_of ? rank_of(task_id) : -1;
  return rank >= 0 ? "rank " + std::to_string(rank) : "task " + std::to_string(task_id);
}

std::string FullName(const RankOf& rank_of, int task_id) {
  const std::string name = WorkerName(rank_of, task_id);
  return name[0] == 'r' ? name + " (task " + std::to_string(task_id) + ")" : name;
}

}  // namespace ringboost::submit
