// The two places a device is chosen: the round trainer and prediction.
#include "tree/trainer.h"

#include <utility>

#include "common/error.h"
#include "tree/gpu_hist/trainer.h"
#include "tree/hist/trainer.h"

namespace ringboost {

std::unique_ptr<RoundTrainer> RoundTrainer::Create(const std::string& device, TrainerSetup setup) {
  if (device == "cpu") return std::make_unique<HistTrainer>(std::move(setup));
  return CreateCudaTrainer(device, std::move(setup));
}

void RoundTrainer::CheckDevice(const std::string& device) {
  if (device != "cpu") OpenDevice(device);
}

void RoundTrainer::CheckDevice(const Params& params) {
  const std::pair<const char*, const std::string*> cpu_only[] = {
      {"monotone_constraints", &params.monotone_constraints},
      {"interaction_constraints", &params.interaction_constraints}};
  for (const auto& [key, value] : cpu_only) {
    if (params.device != "cpu" && !value->empty()) {
      RB_FAIL(key << " is not available with device=" << params.device
                  << " (the GPU method has no constraints yet); train with device=cpu or drop "
                  << key);
    }
  }
  CheckDevice(params.device);
}

std::vector<float> PredictMargin(const std::string& device, const Model& model, const DataSet& data,
                                 int num_rounds, int nthread) {
  if (device == "cpu") return PredictMargin(model, data, num_rounds, nthread);
  return PredictMarginOnDevice(device, model, data, num_rounds);
}

}  // namespace ringboost
