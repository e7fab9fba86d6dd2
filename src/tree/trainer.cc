// The one place a round trainer is chosen by device (prediction's is PredictMargin in predict.cc).
#include "tree/trainer.h"

#include <utility>

#include "common/error.h"
#include "common/params.h"
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

void RoundTrainer::CheckDeviceOptions(const Params& params) {
  if (params.device == "cpu") return;
  if (params.enable_bundle == "true") {
    RB_FAIL(
        "enable_bundle=true (feature bundles) is not on the GPU: train with device=cpu, or "
        "set enable_bundle=false or auto (auto stays off on the GPU)");
  }
  if (params.hist_sync == "reduce_scatter") {
    RB_FAIL(
        "hist_sync=reduce_scatter is not on the GPU yet: train with device=cpu, or set "
        "hist_sync=allreduce (auto takes allreduce on the GPU)");
  }
}

bool RoundTrainer::ReadsSparseColumns(const std::string& device, const HistogramCuts& cuts,
                                      int world_size) {
  return device == "cpu" && TreeGrower::ReadsColumns(cuts, world_size);
}

}  // namespace ringboost
