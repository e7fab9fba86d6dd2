// The device functions of common.h and trainer.h in a build without CUDA: no device is ever
// found, and whatever needs one says that the build has no CUDA and how to get it.
#ifndef RINGBOOST_USE_CUDA

#include "common/error.h"
#include "tree/gpu_hist/common.h"
#include "tree/gpu_hist/trainer.h"

namespace ringboost {
namespace {
[[noreturn]] void NoCuda(const char* what) {
  RB_FAIL(what << ": ringboost was built without CUDA; rebuild with -DRINGBOOST_USE_CUDA=ON "
                  "(needs nvcc) to use device=cuda");
}
}  // namespace

namespace detail {
void* DeviceMalloc(std::size_t) { NoCuda("device memory"); }
void DeviceFree(void*) noexcept {}
void CopyToDevice(void*, const void*, std::size_t) { NoCuda("copy to device"); }
void CopyToHost(void*, const void*, std::size_t) { NoCuda("copy to host"); }
void DeviceMemsetZero(void*, std::size_t) { NoCuda("device memset"); }
void StagedCopyToDevice(HostStage*, void*, const void*, std::size_t) { NoCuda("copy to device"); }
void FreeStage(HostStage*) noexcept {}
}  // namespace detail

int DeviceCount(std::string* reason) {
  if (reason != nullptr) *reason = "built without CUDA (RINGBOOST_USE_CUDA=OFF)";
  return 0;
}
void SetDevice(int) { NoCuda("select a device"); }
DeviceMemoryInfo QueryDeviceMemory() { NoCuda("device memory query"); }
void DeviceSynchronize() { NoCuda("device synchronize"); }
DeviceEventTimer::DeviceEventTimer() { NoCuda("device timer"); }
DeviceEventTimer::~DeviceEventTimer() = default;
void DeviceEventTimer::Start() { NoCuda("device timer"); }
double DeviceEventTimer::Stop() { NoCuda("device timer"); }

int OpenDevice(const std::string& device) {
  RB_FAIL("device=" << device
                    << ": this ringboost was built without CUDA (rebuild with "
                       "-DRINGBOOST_USE_CUDA=ON where nvcc is installed, or use device=cpu)");
}
std::unique_ptr<RoundTrainer> CreateCudaTrainer(const std::string& device, TrainerSetup) {
  OpenDevice(device);
  return nullptr;
}
std::vector<float> PredictMarginOnDevice(const std::string& device, const Model&, const DataSet&,
                                         int) {
  OpenDevice(device);
  return {};
}

}  // namespace ringboost

#endif  // RINGBOOST_USE_CUDA
