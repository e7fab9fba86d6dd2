// Device side of prediction (predict_device.h): one thread per row.
#include <algorithm>
#include <chrono>
#include <sstream>

#include "common/logging.h"
#include "tree/gpu_hist/common.cuh"
#include "tree/predict_device.h"

namespace ringboost {
namespace {

constexpr int kThreads = DevicePolicy::kPredictBlockThreads;

// Rows straight from CSR: a node's feature by binary search in the row.
__global__ void PredictKernel(ForestView forest, CsrView data, uint64_t num_rows, float* out) {
  for (uint64_t r = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; r < num_rows;
       r += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    PredictRow(forest, data, r, out + r * forest.num_groups);
  }
}

// Rows through a dense table in shared memory: the block's kThreads rows, feature f of local row
// i at table[f * kThreads + i] (a warp reads one feature of 32 rows: 32 banks), NaN where the row
// has no entry. The block fills it from the rows' CSR entries, which lie contiguous in memory,
// a thread an entry (the row of an entry by binary search of the block's row starts), then each
// thread walks its row.
__global__ void __launch_bounds__(kThreads)
    PredictDenseKernel(ForestView forest, CsrView data, uint64_t num_rows, float* out) {
  extern __shared__ float table[];
  __shared__ uint64_t starts[kThreads + 1];
  const uint32_t nf = forest.num_feature;
  for (uint64_t first = blockIdx.x * static_cast<uint64_t>(kThreads); first < num_rows;
       first += static_cast<uint64_t>(gridDim.x) * kThreads) {
    const uint32_t n =
        static_cast<uint32_t>(num_rows - first < kThreads ? num_rows - first : kThreads);
    for (uint32_t i = threadIdx.x; i <= n; i += blockDim.x) starts[i] = data.row_ptr[first + i];
    for (uint32_t i = threadIdx.x; i < nf * kThreads; i += blockDim.x) table[i] = NAN;
    __syncthreads();
    for (uint64_t k = starts[0] + threadIdx.x; k < starts[n]; k += blockDim.x) {
      const uint32_t f = data.index[k];
      if (f >= nf) continue;    // past the model's features: never read
      uint32_t lo = 0, hi = n;  // the last row whose start is <= k
      while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (starts[mid] <= k) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      table[f * kThreads + lo] = data.value[k];
    }
    __syncthreads();
    if (threadIdx.x < n) {
      PredictRowWith(forest, DenseRow{table + threadIdx.x, kThreads},
                     out + (first + threadIdx.x) * forest.num_groups);
    }
    __syncthreads();  // the table is refilled next
  }
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::vector<float> PredictMarginOnDevice(const Model& model, const DataSet& data, int num_rounds) {
  const FlatForest f = FlattenForest(model, TreesForRounds(model, num_rounds));
  const uint64_t rows = data.NumRows();
  std::vector<float> margins = model.InitialMargins(rows);
  if (rows == 0) return margins;
  const std::size_t need = f.nodes.size() * sizeof(FlatNode) +
                           f.tree_begin.size() * (sizeof(uint32_t) + sizeof(int32_t)) +
                           (f.cat_ptr.size() + f.categories.size()) * sizeof(uint32_t) +
                           data.row_ptr.size() * sizeof(uint64_t) +
                           data.index.size() * (sizeof(uint32_t) + sizeof(float)) +
                           margins.size() * sizeof(float);
  std::ostringstream what;
  what << "prediction of " << rows << " rows with " << f.tree_begin.size() << " trees";
  CheckDeviceMemoryFits(need, QueryDeviceMemory().free_bytes, what.str());
  const auto upload_start = std::chrono::steady_clock::now();
  DeviceBuffer<FlatNode> d_nodes(f.nodes);
  DeviceBuffer<uint32_t> d_tree_begin(f.tree_begin);
  DeviceBuffer<int32_t> d_tree_group(f.tree_group);
  DeviceBuffer<uint32_t> d_cat_ptr(f.cat_ptr);
  DeviceBuffer<uint32_t> d_categories(f.categories);
  DeviceBuffer<uint64_t> d_row_ptr(data.row_ptr);
  DeviceBuffer<uint32_t> d_index(data.index);
  DeviceBuffer<float> d_value(data.value);
  DeviceBuffer<float> d_out(margins);
  RB_CUDA_CHECK(cudaDeviceSynchronize());
  const double upload_s = SecondsSince(upload_start);
  ForestView forest{d_nodes.data(),      d_tree_begin.data(),
                    d_tree_group.data(), static_cast<uint32_t>(f.tree_begin.size()),
                    model.num_feature,   model.num_groups,
                    model.base_margin};
  if (!f.cat_ptr.empty()) {
    forest.cat_ptr = d_cat_ptr.data();
    forest.categories = d_categories.data();
  }
  const CsrView csr{d_row_ptr.data(), d_index.data(), d_value.data()};
  const unsigned int grid = GridStrideFor(rows, kThreads);
  const std::size_t table_bytes = std::size_t{model.num_feature} * kThreads * sizeof(float);
  const bool dense = table_bytes <= DevicePolicy::kPredictTableBytes;
  const auto kernel_start = std::chrono::steady_clock::now();
  if (dense) {
    PredictDenseKernel<<<grid, kThreads, table_bytes>>>(forest, csr, rows, d_out.data());
  } else {
    PredictKernel<<<grid, kThreads>>>(forest, csr, rows, d_out.data());
  }
  RB_CUDA_CHECK_LAUNCH();
  RB_CUDA_CHECK(cudaDeviceSynchronize());
  const double kernel_s = SecondsSince(kernel_start);
  std::vector<float> result = d_out.ToHost();
  RB_LOG(kDebug, "device prediction: upload "
                     << upload_s << " s, kernel " << kernel_s << " s ("
                     << static_cast<double>(rows) / std::max(kernel_s, 1e-9) << " rows/s, "
                     << (dense ? "dense table" : "csr search") << ")");
  return result;
}

}  // namespace ringboost
