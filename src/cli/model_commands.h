// The CLI's commands on a model file, beside the tasks (docs/model-format.md):
//   ringboost export MODEL --format ringboost|xgboost-json|xgboost-ubj -o FILE
//   ringboost importance MODEL [--type weight|gain|cover|total_gain|total_cover] [--fmap F]
//                              [-o FILE]
//   ringboost plot importance MODEL [--type T] [--fmap F] [--top N] -o FILE.svg
//   ringboost plot history EVAL_HISTORY -o FILE.svg        (cli/plot.h)
// MODEL may be in any format ringboost reads (detected by content).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace ringboost {

class ModelCommands {
 public:
  // Adds the subcommands to `app`; keep the object alive until Run.
  explicit ModelCommands(CLI::App* app);
  // Runs the one given on the command line: true with *exit_code set, false when none was.
  // Throws Error for a user's mistake.
  bool Run(int* exit_code) const;

 private:
  int RunExport() const;
  int RunImportance() const;
  int RunPlot() const;

  CLI::App* export_ = nullptr;
  CLI::App* importance_ = nullptr;
  CLI::App* plot_ = nullptr;
  CLI::App* plot_importance_ = nullptr;
  CLI::App* plot_history_ = nullptr;
  std::string history_;
  int top_ = 0;
  std::string model_;
  std::string format_ = "xgboost-json";
  std::string type_ = "weight";
  std::string fmap_;
  std::string out_;
};

}  // namespace ringboost
