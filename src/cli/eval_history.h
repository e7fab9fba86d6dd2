// eval_history=FILE: every round's eval results, rewritten after each round so that the file
// is whole at any moment (docs/model-format.md, "Pictures"); a FIFO or a device (/dev/stdout),
// which cannot be rewritten, gets the whole history once, after the last round. Rank 0 only.
//   FILE.json: XGBoost's evals_result layout, {"test": {"logloss": [0.5, 0.4]}, ...}
//   any other name: CSV, a header "iteration,test-logloss,..." and a line per round.
// `ringboost plot history FILE` draws either.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ringboost {

class EvalHistory {
 public:
  // `sets`: the eval set names, which prefix the result names ("test" of "test-logloss").
  EvalHistory(std::string path, std::vector<std::string> sets);

  // Records round `round`'s results (EvalOneRound's) and rewrites a regular file.
  void Add(int round, const std::vector<std::pair<std::string, double>>& results);

  // After the last round: writes a FIFO or device target (a regular file is whole already).
  void Finish() const;

  // Before a run's first round `round`: keeps the rounds recorded before it (a rollback after a
  // lost worker does the later ones again); a new process resuming a checkpoint takes them from
  // the file its killed run left, so that the file ends up whole (the next Add drops them if
  // their columns are not this run's).
  void ResumeAt(int round);

  // The file's text now.
  std::string Text() const;

 private:
  std::string Csv() const;
  std::string Json() const;
  // (set, metric) of a result name.
  std::pair<std::string, std::string> Split(const std::string& name) const;

  std::string path_;
  bool in_place_ = false;  // a FIFO or a device: written once, by Finish
  std::vector<std::string> sets_;
  std::vector<std::string> names_;  // result names, from the first round
  std::vector<int> rounds_;
  std::vector<std::vector<double>> values_;  // per round, in names_ order
  bool from_file_ = false;                   // names_ and the rounds read back by ResumeAt
};

// Reads a file EvalHistory wrote (CSV or JSON) into result names ("test-logloss") and their
// per-round values, rounds in `rounds`. Throws Error naming the file and line on bad input.
struct EvalCurves {
  std::vector<int> rounds;
  std::vector<std::string> names;
  std::vector<std::vector<double>> values;  // per name, a value per round
};
EvalCurves ReadEvalHistory(const std::string& path);

}  // namespace ringboost
