// Device side of prediction (predict_device.h): one thread per row.
#include <algorithm>
#include <sstream>

#include "tree/gpu_hist/common.cuh"
#include "tree/predict_device.h"

namespace ringboost {
namespace {

__global__ void PredictKernel(ForestView forest, CsrView data, uint64_t num_rows, float* out) {
  for (uint64_t r = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; r < num_rows;
       r += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    PredictRow(forest, data, r, out + r * forest.num_groups);
  }
}

}  // namespace

std::vector<float> PredictMarginOnDevice(const Model& model, const DataSet& data, int num_rounds) {
  const FlatForest f = FlattenForest(model, TreesForRounds(model, num_rounds));
  const uint64_t rows = data.NumRows();
  std::vector<float> margins(rows * model.num_groups, model.base_margin);
  if (rows == 0) return margins;
  const std::size_t need = f.nodes.size() * sizeof(FlatNode) +
                           f.tree_begin.size() * (sizeof(uint32_t) + sizeof(int32_t)) +
                           data.row_ptr.size() * sizeof(uint64_t) +
                           data.index.size() * (sizeof(uint32_t) + sizeof(float)) +
                           margins.size() * sizeof(float);
  std::ostringstream what;
  what << "prediction of " << rows << " rows with " << f.tree_begin.size() << " trees";
  CheckDeviceMemoryFits(need, QueryDeviceMemory().free_bytes, what.str());
  DeviceBuffer<FlatNode> d_nodes(f.nodes);
  DeviceBuffer<uint32_t> d_tree_begin(f.tree_begin);
  DeviceBuffer<int32_t> d_tree_group(f.tree_group);
  DeviceBuffer<uint64_t> d_row_ptr(data.row_ptr);
  DeviceBuffer<uint32_t> d_index(data.index);
  DeviceBuffer<float> d_value(data.value);
  DeviceBuffer<float> d_out(margins);
  const ForestView forest{d_nodes.data(),      d_tree_begin.data(),
                          d_tree_group.data(), static_cast<uint32_t>(f.tree_begin.size()),
                          model.num_feature,   model.num_groups,
                          model.base_margin};
  const CsrView csr{d_row_ptr.data(), d_index.data(), d_value.data()};
  constexpr int kThreads = DevicePolicy::kElementwiseBlockThreads;
  const unsigned int grid = GridStrideFor(rows, kThreads);
  PredictKernel<<<grid, kThreads>>>(forest, csr, rows, d_out.data());
  RB_CUDA_CHECK_LAUNCH();
  return d_out.ToHost();
}

}  // namespace ringboost
