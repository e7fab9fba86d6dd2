// The two places a device is chosen: the round trainer and prediction.
#include "tree/trainer.h"

#include <utility>

#include "common/error.h"
#include "tree/gpu_hist/trainer.h"
#include "tree/hist/trainer.h"

namespace ringboost {

std::unique_ptr<RoundTrainer> RoundTrainer::Create(const std::string& device, TrainerSetup setup) {
  if (device == "cpu") return std::make_unique<HistTrainer>(std::move(setup));
  if (!setup.cuts.is_cat.empty()) {
    RB_FAIL("categorical features are not on the GPU yet; train them with device=cpu");
  }
  return CreateCudaTrainer(device, std::move(setup));
}

void RoundTrainer::CheckDevice(const std::string& device) {
  if (device != "cpu") OpenDevice(device);
}

std::vector<float> PredictMargin(const std::string& device, const Model& model, const DataSet& data,
                                 int num_rounds, int nthread) {
  if (device == "cpu") return PredictMargin(model, data, num_rounds, nthread);
  return PredictMarginOnDevice(device, model, data, num_rounds);
}

}  // namespace ringboost
