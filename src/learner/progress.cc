#include "learner/progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ringboost {
namespace {

// Lines mode prints the first and the last round and between them at most one line per this
// interval.
constexpr double kLineIntervalSeconds = 1.0;

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

Progress::Mode Progress::ModeFromEnvironment() {
  const char* v = std::getenv("RINGBOOST_PROGRESS");
  if (v != nullptr && std::strcmp(v, "lines") == 0) return Mode::kLines;
  if (v != nullptr && std::strcmp(v, "live") == 0) return Mode::kLive;
  if (v != nullptr && *v != '\0') return Mode::kNone;  // 0, or anything else
  return ::isatty(2) != 0 ? Mode::kLive : Mode::kNone;
}

Progress::Progress(int first_round, int total, bool enabled)
    : first_round_(first_round),
      total_(total),
      mode_(enabled ? ModeFromEnvironment() : Mode::kNone),
      start_(Clock::now()),
      last_line_(start_) {}

void Progress::Update(int done, bool printed_eval) {
  if (mode_ == Mode::kNone) return;
  const double elapsed = Since(start_);
  const int run = done - first_round_;
  const double eta = run > 0 ? elapsed / run * (total_ - done) : 0.0;
  char text[160];
  std::snprintf(text, sizeof(text), "[ringboost] round %d/%d, %.1f s elapsed, ETA %.1f s", done,
                total_, elapsed, eta);
  if (mode_ == Mode::kLive) {
    std::fprintf(stderr, "\r%s   ", text);
    line_open_ = true;
    if (done == total_) Finish();
  } else if (!printed_eval &&
             (run == 1 || done == total_ || Since(last_line_) >= kLineIntervalSeconds)) {
    std::fprintf(stderr, "%s\n", text);
    last_line_ = Clock::now();
  }
  std::fflush(stderr);
}

void Progress::Clear() {
  if (!line_open_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  line_open_ = false;
}

void Progress::Finish() {
  if (!line_open_) return;
  std::fputc('\n', stderr);
  std::fflush(stderr);
  line_open_ = false;
}

}  // namespace ringboost
