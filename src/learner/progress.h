// Progress of a training run for the person watching it: rounds done, elapsed time and ETA on
// stderr, so that a long run without an eval set is not silent until the model is written.
//
// The mode comes from RINGBOOST_PROGRESS: `live` rewrites one line in place (\r); `lines` prints
// the first and the last round and at most a line a second between them, for output relayed line
// by line (ringboost-submit sets it for its workers when it runs on a terminal); `0` none. Unset:
// live when stderr is a terminal, else none, so that logs stay clean. Only rank 0 reports.
#pragma once

#include <chrono>

namespace ringboost {

class Progress {
 public:
  enum class Mode { kNone, kLive, kLines };

  // Rounds first_round..total-1 are to run (first_round > 0 when training resumes); only an
  // enabled Progress (rank 0's) prints.
  Progress(int first_round, int total, bool enabled);

  // After round done-1. `printed_eval`: the round's eval line went to stdout, which already
  // shows the progress in lines mode.
  void Update(int done, bool printed_eval);
  // Erases a live line, so that an eval line on a shared terminal starts on a clean line.
  void Clear();
  // Ends a live line (after the last round, or early stopping).
  void Finish();

  // The mode RINGBOOST_PROGRESS and stderr ask for.
  static Mode ModeFromEnvironment();

 private:
  using Clock = std::chrono::steady_clock;
  int first_round_;
  int total_;
  Mode mode_;
  bool line_open_ = false;
  Clock::time_point start_;
  Clock::time_point last_line_;
};

}  // namespace ringboost
