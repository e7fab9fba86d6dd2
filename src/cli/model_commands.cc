// ringboost export / importance / plot: read a model in any format, write it, its feature
// scores, or a chart of them (or of an eval history).
#include "cli/model_commands.h"

#include <algorithm>

#include "cli/output_clash.h"
#include "cli/plot.h"
#include "common/error.h"
#include "common/external_tool.h"
#include "common/file_io.h"
#include "model/importance.h"
#include "model/model.h"
#include "model/xgboost_format.h"

namespace ringboost {
namespace {

// `text` to stdout for "" (no -o), "-" or "stdout", else to the file (atomically).
void WriteOutputOrStdout(const std::string& path, const std::string& text) {
  WriteOutput(path.empty() ? "-" : path, text);
}

}  // namespace

ModelCommands::ModelCommands(CLI::App* app) {
  export_ = app->add_subcommand(
      "export",
      "Write MODEL (any format ringboost reads) in another format: XGBoost's JSON or "
      "UBJSON, which XGBoost 3.x's Booster.load_model reads, or ringboost's own.");
  export_->add_option("MODEL", model_, "model file")->required();
  export_->add_option("--format", format_, "xgboost-json (default), xgboost-ubj or ringboost");
  export_->add_option("-o,--output", out_, "output file (- for stdout)")->required();
  importance_ = app->add_subcommand(
      "importance", "Print MODEL's feature importance as XGBoost's get_score gives it (JSON).");
  importance_->add_option("MODEL", model_, "model file")->required();
  importance_->add_option("--type", type_,
                          "weight (default), gain, cover, total_gain or total_cover");
  importance_->add_option("--fmap", fmap_, "feature map for names");
  importance_->add_option("-o,--output", out_, "output file (default stdout)");
  plot_ = app->add_subcommand("plot", "Draw a chart as SVG with gnuplot (package gnuplot-nox).");
  plot_->require_subcommand(1);
  plot_importance_ = plot_->add_subcommand(
      "importance", "MODEL's feature importance as a bar chart, as XGBoost's plot_importance.");
  plot_importance_->add_option("MODEL", model_, "model file")->required();
  plot_importance_->add_option("--type", type_,
                               "weight (default), gain, cover, total_gain or total_cover");
  plot_importance_->add_option("--fmap", fmap_, "feature map for names");
  plot_importance_->add_option("--top", top_, "only the N most important features (0: all)");
  plot_history_ = plot_->add_subcommand(
      "history", "Learning curves of an eval history (eval_history=FILE, CSV or JSON).");
  plot_history_->add_option("EVAL_HISTORY", history_, "the file training wrote")->required();
  for (CLI::App* sub : {plot_importance_, plot_history_}) {
    sub->add_option("-o,--output", out_, "SVG file (- for stdout)")->required();
  }
}

bool ModelCommands::Run(int* exit_code) const {
  if (!*export_ && !*importance_ && !*plot_) return false;
  const std::string clash = OutputClash(
      {{"--output", out_}}, {{"MODEL", model_}, {"--fmap", fmap_}, {"EVAL_HISTORY", history_}});
  if (!clash.empty()) RB_FAIL(clash);
  if (*export_) {
    *exit_code = RunExport();
    return true;
  }
  if (*importance_) {
    *exit_code = RunImportance();
    return true;
  }
  if (*plot_) {
    *exit_code = RunPlot();
    return true;
  }
  return false;
}

int ModelCommands::RunExport() const {
  const ModelFormat format = ModelFormatFromName(format_);
  const Model model = Model::Load(model_);
  WriteOutput(out_, WriteModelAs(model, format));  // "-" and "stdout": standard output
  return 0;
}

int ModelCommands::RunImportance() const {
  const ImportanceType type = ImportanceTypeFromName(type_);
  const Model model = Model::Load(model_);
  const FeatureMap fmap = FeatureMap::For(model, fmap_);
  const std::string text =
      ImportanceJson(FeatureImportance(model, type), fmap.names.empty() ? nullptr : &fmap);
  WriteOutputOrStdout(out_, text);
  return 0;
}

int ModelCommands::RunPlot() const {
  RequireTool(kGnuplot, "ringboost plot");
  std::string script;
  if (*plot_history_) {
    script = HistoryChartScript(ReadEvalHistory(history_));
  } else {
    const ImportanceType type = ImportanceTypeFromName(type_);
    if (top_ < 0) RB_FAIL("--top " << top_ << ": give a number of features, or 0 for all");
    const Model model = Model::Load(model_);
    const FeatureMap fmap = FeatureMap::For(model, fmap_);
    std::vector<std::pair<std::string, double>> scores;
    for (const auto& [feature, score] : FeatureImportance(model, type)) {
      const bool named = feature < fmap.names.size();
      scores.emplace_back(named ? fmap.names[feature] : "f" + std::to_string(feature), score);
    }
    std::stable_sort(scores.begin(), scores.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    if (top_ > 0 && scores.size() > static_cast<std::size_t>(top_)) scores.resize(top_);
    script = ImportanceChartScript(std::move(scores), type_);
  }
  WriteOutputOrStdout(out_, RenderChart(script));
  return 0;
}

}  // namespace ringboost
