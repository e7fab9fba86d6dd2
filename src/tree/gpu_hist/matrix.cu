// Device side of the device binned matrix: a kernel that reads every (row, feature) back, for the
// equivalence test against BinnedMatrix::GetBin.
#include <algorithm>

#include "tree/gpu_hist/common.cuh"
#include "tree/gpu_hist/matrix.h"

namespace ringboost {
namespace {

__global__ void UnpackAllKernel(EllpackView view, int64_t* out) {
  const uint64_t n = view.shape.num_rows * view.shape.num_features;
  for (uint64_t k = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    const uint64_t row = k / view.shape.num_features;
    const uint32_t feature = static_cast<uint32_t>(k % view.shape.num_features);
    out[k] = view.GetBin(row, feature);
  }
}

}  // namespace

std::vector<int64_t> UnpackAllOnDevice(const DeviceMatrix& matrix, bool by_rows) {
  EllpackView view = matrix.View();
  if (by_rows) view.columns = nullptr;
  DeviceBuffer<int64_t> d_out(view.shape.num_rows * view.shape.num_features);
  if (d_out.empty()) return {};
  constexpr int kThreads = DevicePolicy::kElementwiseBlockThreads;
  const unsigned int grid = GridStrideFor(d_out.size(), kThreads);
  UnpackAllKernel<<<grid, kThreads>>>(view, d_out.data());
  RB_CUDA_CHECK_LAUNCH();
  return d_out.ToHost();
}

}  // namespace ringboost
