// The one place a round trainer is chosen by device (prediction's is PredictMargin in predict.cc).
#include "tree/trainer.h"

#include <utility>

#include "tree/gpu_hist/trainer.h"
#include "tree/hist/grower.h"
#include "tree/hist/trainer.h"

namespace ringboost {

std::unique_ptr<RoundTrainer> RoundTrainer::Create(const std::string& device, TrainerSetup setup) {
  if (device == "cpu") return std::make_unique<HistTrainer>(std::move(setup));
  return CreateCudaTrainer(device, std::move(setup));
}

void RoundTrainer::CheckDevice(const std::string& device) {
  if (device != "cpu") OpenDevice(device);
}

bool RoundTrainer::ReadsSparseColumns(const std::string& device, const HistogramCuts& cuts,
                                      int world_size) {
  return device == "cpu" && TreeGrower::ReadsColumns(cuts, world_size);
}

}  // namespace ringboost
