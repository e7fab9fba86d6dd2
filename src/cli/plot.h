// Charts as SVG, drawn by gnuplot (package gnuplot-nox): ringboost writes a gnuplot script with
// the data inline and gnuplot renders it (docs/model-format.md, "Pictures").
//   ringboost plot importance MODEL [--type T] [--fmap F] [--top N] -o OUT.svg
//   ringboost plot history EVAL_HISTORY -o OUT.svg   (eval_history=FILE of a training run)
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cli/eval_history.h"

namespace ringboost {

// The gnuplot script of a horizontal bar chart of (name, score), largest on top, as XGBoost's
// plot_importance draws it; `what` names the score ("gain").
std::string ImportanceChartScript(std::vector<std::pair<std::string, double>> scores,
                                  const std::string& what);

// The gnuplot script of learning curves: a panel per metric, a line per eval set.
std::string HistoryChartScript(const EvalCurves& curves);

// Runs gnuplot on `script` and returns the SVG. Throws Error naming the package when gnuplot is
// not installed, or with gnuplot's message when it fails.
std::string RenderChart(const std::string& script);

}  // namespace ringboost
