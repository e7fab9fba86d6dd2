// ringboost export / importance: read a model in any format, write it or its feature scores.
#include "cli/model_commands.h"

#include <cstdio>

#include "common/error.h"
#include "common/file_io.h"
#include "model/importance.h"
#include "model/model.h"
#include "model/xgboost_format.h"

namespace ringboost {

ModelCommands::ModelCommands(CLI::App* app) {
  export_ = app->add_subcommand(
      "export",
      "Write MODEL (any format ringboost reads) in another format: XGBoost's JSON or "
      "UBJSON, which XGBoost 3.x's Booster.load_model reads, or ringboost's own.");
  export_->add_option("MODEL", model_, "model file")->required();
  export_->add_option("--format", format_, "xgboost-json (default), xgboost-ubj or ringboost");
  export_->add_option("-o,--output", out_, "output file")->required();
  importance_ = app->add_subcommand(
      "importance", "Print MODEL's feature importance as XGBoost's get_score gives it (JSON).");
  importance_->add_option("MODEL", model_, "model file")->required();
  importance_->add_option("--type", type_,
                          "weight (default), gain, cover, total_gain or total_cover");
  importance_->add_option("--fmap", fmap_, "feature map for names");
  importance_->add_option("-o,--output", out_, "output file (default stdout)");
}

bool ModelCommands::Run(int* exit_code) const {
  if (*export_) {
    *exit_code = RunExport();
    return true;
  }
  if (*importance_) {
    *exit_code = RunImportance();
    return true;
  }
  return false;
}

int ModelCommands::RunExport() const {
  const ModelFormat format = ModelFormatFromName(format_);
  SaveModelAs(Model::Load(model_), out_, format);
  return 0;
}

int ModelCommands::RunImportance() const {
  const ImportanceType type = ImportanceTypeFromName(type_);
  FeatureMap fmap;
  if (!fmap_.empty()) fmap = FeatureMap::Load(fmap_);
  const std::string text =
      ImportanceJson(FeatureImportance(Model::Load(model_), type), fmap_.empty() ? nullptr : &fmap);
  if (out_.empty() || out_ == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    WriteFileAtomic(out_, text);
  }
  return 0;
}

}  // namespace ringboost
