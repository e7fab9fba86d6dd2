// device=cuda / cuda:N (DESIGN.md, GPU): CudaTrainer, the GPU's RoundTrainer (tree/trainer.h).
// The training margins live on the device; each round's gradients are computed there (on the host
// for objectives that are not element-wise, such as ranking, from the margins fetched back),
// quantized there to GradientQuantizer's integers, and the trees grow on the device
// (DeviceTreeGrower over a DeviceMatrix of the same cuts and bins), so the model is the CPU's.
// Metrics and the eval sets' margins stay on the host. Without CUDA in the build (stub.cc), or
// without a device, each function here fails with a message that says which.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/data.h"
#include "model/model.h"
#include "tree/trainer.h"

namespace ringboost {

// The GPU ordinal `device` names: cuda:N is N; cuda is the worker's local rank (Open MPI's or
// MPICH's local rank variable, else 0) modulo the devices. Throws Error naming the device when
// the build has no CUDA, there is no device, or N is out of range.
int OpenDevice(const std::string& device);

// A CudaTrainer on the GPU `device` names (OpenDevice), with the device matrix, gradients and
// grower built from `setup`; throws Error when training would not fit the device's memory.
std::unique_ptr<RoundTrainer> CreateCudaTrainer(const std::string& device, TrainerSetup setup);

// PredictMargin on the GPU `device` names.
std::vector<float> PredictMarginOnDevice(const std::string& device, const Model& model,
                                         const DataSet& data, int num_rounds);

}  // namespace ringboost
