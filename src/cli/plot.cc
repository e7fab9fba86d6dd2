// The gnuplot scripts of the charts (plot.h). Text is set `noenhanced` so that names print as
// they are (enhanced mode would read "_" as a subscript); quotes in names become apostrophes.
#include "cli/plot.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "common/error.h"
#include "common/external_tool.h"
#include "common/params.h"
#include "metric/metric.h"

namespace ringboost {
namespace {

std::string Number(double v) {
  if (!std::isfinite(v)) return "NaN";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

// A string on a gnuplot command line, single-quoted: gnuplot runs a backquoted `command` found
// anywhere on a command line except inside single quotes, where nothing but the quote (written
// twice) is special. Feature and eval-set names come from files a user may not have written.
std::string GnuplotString(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "''";
    } else {
      out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
  }
  return out + "'";
}

// A string in a data block (which gnuplot never substitutes in): double-quoted, one column.
std::string DataString(const std::string& text) {
  std::string out = "\"";
  for (char c : text)
    out += (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) ? '\'' : c;
  return out + "\"";
}

std::string Terminal(int width, int height) {
  return "set terminal svg size " + std::to_string(width) + "," + std::to_string(height) +
         " noenhanced font \"sans,11\" background rgb \"white\"\n";
}

// The metric of a result name "set-metric": set and metric names may both hold '-' ("my-valid",
// "gamma-deviance", "ndcg@5-"), so it is the text after the first '-' that names a metric
// (Metric::Create takes it), else after the first '-'.
std::string MetricOf(const std::string& name) {
  for (std::size_t dash = name.find('-'); dash != std::string::npos;
       dash = name.find('-', dash + 1)) {
    try {
      Metric::Create(name.substr(dash + 1), Params());
      return name.substr(dash + 1);
    } catch (const Error&) {
    }
  }
  const std::size_t dash = name.find('-');
  return dash == std::string::npos ? name : name.substr(dash + 1);
}

}  // namespace

std::string ImportanceChartScript(std::vector<std::pair<std::string, double>> scores,
                                  const std::string& what) {
  if (scores.empty()) RB_FAIL("no feature importance to plot: the model has no splits");
  std::stable_sort(scores.begin(), scores.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  const int n = static_cast<int>(scores.size());
  std::string s = Terminal(800, std::max(200, 60 + 22 * n));
  s += "set title " + GnuplotString("Feature importance (" + what + ")") + "\n";
  s += "set xlabel " + GnuplotString(what) + "\nunset key\nset style fill solid 0.8\n";
  s += "set yrange [-0.6:" + std::to_string(n) +
       "-0.4]\nset xrange [0:*]\nset offsets 0,graph 0.15,0,0\n";
  s += "$scores << EOD\n";
  for (const auto& [name, score] : scores) s += DataString(name) + " " + Number(score) + "\n";
  s += "EOD\n";
  s += "plot $scores using (0):0:(0):2:($0-0.4):($0+0.4):ytic(1) with boxxyerror "
       "lc rgb \"#4472C4\", '' using 2:0:(sprintf(\"%g\", $2)) with labels left offset 0.5,0\n";
  return s;
}

std::string HistoryChartScript(const EvalCurves& curves) {
  if (curves.names.empty() || curves.rounds.empty())
    RB_FAIL("the eval history has no rounds to plot");
  std::map<std::string, std::vector<std::size_t>> panels;  // metric -> columns
  std::vector<std::string> order;
  for (std::size_t k = 0; k < curves.names.size(); ++k) {
    const std::string metric = MetricOf(curves.names[k]);
    if (panels.find(metric) == panels.end()) order.push_back(metric);
    panels[metric].push_back(k);
  }
  const int n = static_cast<int>(order.size());
  std::string s = Terminal(800, 320 * n);
  s += "$history << EOD\n";
  for (std::size_t r = 0; r < curves.rounds.size(); ++r) {
    s += std::to_string(curves.rounds[r]);
    for (const auto& v : curves.values) s += " " + Number(v[r]);
    s += "\n";
  }
  s += "EOD\nset multiplot layout " + std::to_string(n) + ",1 title \"Eval history\"\n";
  s += "set xlabel \"round\"\nset key outside right\nset grid\n";
  if (curves.rounds.size() <= 20) s += "set xtics 1\n";  // whole rounds only
  for (const std::string& metric : order) {
    s += "set ylabel " + GnuplotString(metric) + "\nplot ";
    const std::vector<std::size_t>& columns = panels[metric];
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i != 0) s += ", ";
      s += "$history using 1:" + std::to_string(columns[i] + 2) + " with lines lw 2 title " +
           GnuplotString(curves.names[columns[i]]);
    }
    s += "\n";
  }
  return s + "unset multiplot\n";
}

std::string RenderChart(const std::string& script) {
  RequireTool(kGnuplot, "drawing a chart");
  return RunTool(kGnuplot, {}, script, "svg");
}

}  // namespace ringboost
