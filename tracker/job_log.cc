#include <cerrno>
#include <cstdio>
#include <cstring>

#include "submit.h"

namespace ringboost::submit {

JobLog::JobLog(const std::string& path) : path_(path) {
  if (path.empty()) return;
  file_ = std::fopen(path.c_str(), "a");
  if (file_ == nullptr) {
    RB_FAIL("--log-file " << path << ": cannot open for appending: " << std::strerror(errno));
  }
}

JobLog::~JobLog() { (void)Close(); }

void JobLog::Line(const std::string& line) { Write(stderr, line); }

void JobLog::WorkerLine(const std::string& line) { Write(stdout, line); }

Status JobLog::Close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (file_ != nullptr) {
    if (std::fclose(file_) != 0) FileFailed("close");
    file_ = nullptr;
  }
  return file_status_;
}

void JobLog::FileFailed(const char* call) {
  const int err = errno;
  if (file_status_.ok()) {
    file_status_ = Status::Fail("--log-file " + path_ + ": cannot " + call + ": " +
                                std::strerror(err) + "; the log there is incomplete");
    std::fprintf(stderr, "ringboost-submit: error: %s\n", file_status_.message().c_str());
    std::fflush(stderr);
  }
}

// The line's bytes as they are, NUL bytes and all (a worker's output is relayed, not parsed).
void JobLog::Write(std::FILE* stream, const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::FILE* out : {stream, file_}) {
    if (out == nullptr || (out == file_ && !file_status_.ok())) continue;
    const bool written = std::fwrite(line.data(), 1, line.size(), out) == line.size() &&
                         std::fputc('\n', out) != EOF;
    if (out != file_) {
      std::fflush(out);
    } else if (!written) {
      FileFailed("write");
    } else if (std::fflush(out) != 0) {
      FileFailed("write (flush)");
    }
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
