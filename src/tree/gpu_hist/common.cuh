// CUDA-only helpers of the tree kernels (nvcc only): the one checking macro, the tuning policy,
// 64-bit integer atomics on GradientSum. Host-visible declarations are in common.h.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/error.h"
#include "tree/gpu_hist/common.h"
#include "tree/gradient.h"

namespace ringboost {
namespace detail {
// Throws ringboost::Error "file:line: <call> failed: <cudaErrorName>: <cudaErrorString>".
[[noreturn]] void CudaFailed(cudaError_t code, const char* call, const char* file, int line);
}  // namespace detail

// Tuning constants of the tree kernels, in one place (as CUB's dispatch policies). Changing one
// changes speed, never results: every sum is an integer sum (gradient.h).
struct DevicePolicy {
  // Histogram: threads per block, blocks an SM should hold (the kernel's launch bounds), rows of a
  // block task, and the shared memory a block may use for its sums (16 bytes a cell: g and h as
  // two 32-bit words each; lanes of a group's table in multiples of 32, one a bank) and for its
  // tile of dense rows (their symbols and gradients). 48 KiB runs everywhere without opt-in; more
  // is asked for where the device allows it: 160 KiB of sums hold 28 features of 256 bins
  // (256 x 32 cells, 128 KiB), and with a tile of 1024 such rows (44 KiB) one block fills an
  // H100 SM (227 KiB). Tiles of fewer rows than kHistMinTileRows are not worth their barriers.
  static constexpr int kHistBlockThreads = 1024;
  static constexpr int kHistBlocksPerSM = 1;
  static constexpr uint64_t kHistRowsPerTask = 2048;
  static constexpr std::size_t kHistSharedBytes = 48 * 1024;
  static constexpr std::size_t kHistSharedOptinBytes = 160 * 1024;
  static constexpr std::size_t kHistTileBytes = 64 * 1024;
  static constexpr uint32_t kHistMinTileRows = 128;
  static constexpr std::size_t kHistSharedBytesPerCell = 4 * sizeof(uint32_t);
  static constexpr uint32_t kHistLaneAlign = 32;
  // More shared-memory groups than this (each a pass over the rows): one global-atomics pass.
  static constexpr uint32_t kHistMaxSharedGroups = 8;
  // Split evaluation: threads of the block that scans one (node, feature).
  static constexpr int kSplitBlockThreads = 128;
  // Partition, prediction and element-wise kernels.
  static constexpr int kPartitionBlockThreads = 256;
  // Prediction-cache update: rows of one leaf a block adds its value to.
  static constexpr uint64_t kLeafChunkRows = 2048;
  static constexpr int kElementwiseBlockThreads = 256;
  // Prediction: rows of a block, and the most shared memory for their dense table (a float per
  // feature and row: 80 features at 128 rows, within the 48 KiB a block has without opt-in);
  // wider models search each row's CSR entries.
  static constexpr int kPredictBlockThreads = 128;
  static constexpr std::size_t kPredictTableBytes = 40 * 1024;
  // Grid-stride kernels: at most this many blocks.
  static constexpr unsigned int kMaxGridBlocks = 65535;
};

// Blocks of `threads` covering n items (at least 1 so that a launch is always valid).
inline unsigned int GridFor(uint64_t n, int threads) {
  const uint64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned int>(blocks == 0 ? 1 : blocks);
}
// The same, capped for kernels that stride over n by the grid.
inline unsigned int GridStrideFor(uint64_t n, int threads) {
  const unsigned int blocks = GridFor(n, threads);
  return blocks < DevicePolicy::kMaxGridBlocks ? blocks : DevicePolicy::kMaxGridBlocks;
}

// Blocks of `threads` for a kernel that strides over n items: at most as many as the device holds
// at once (its SMs times the blocks of that size an SM's threads allow), so that a reduction
// kernel's blocks each take many items and few block results meet at one global atomic.
unsigned int ResidentGrid(uint64_t n, int threads);

// Exact integer add of a GradientSum into shared or global memory. Two's complement addition
// through unsigned long long is exact modulo 2^64, and the quantizer bounds every true sum below
// 2^62, so the result is exact and independent of the order of the adds.
__device__ inline void AtomicAddSum(GradientSum* dst, int64_t g, int64_t h) {
  atomicAdd(reinterpret_cast<unsigned long long*>(&dst->g), static_cast<unsigned long long>(g));
  atomicAdd(reinterpret_cast<unsigned long long*>(&dst->h), static_cast<unsigned long long>(h));
}

// Exact add of v into the int64 held as words (lo, hi) of shared memory: the low words' carry
// goes into the high word. Both adds are modulo 2^32, so the pair ends as the sum modulo 2^64
// whatever the order of the adds of all threads.
__device__ __forceinline__ void SharedAdd64(uint32_t* lo, uint32_t* hi, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v);
  const uint32_t v_lo = static_cast<uint32_t>(u);
  const uint32_t old = atomicAdd(lo, v_lo);
  const uint32_t v_hi = static_cast<uint32_t>(u >> 32) + (old + v_lo < old ? 1u : 0u);
  if (v_hi != 0) atomicAdd(hi, v_hi);
}

}  // namespace ringboost

// Checks a CUDA runtime call; on failure throws ringboost::Error with file:line, the call and
// the CUDA error name and string. The one checking macro of the CUDA code.
#define RB_CUDA_CHECK(call)                                                     \
  do {                                                                          \
    const cudaError_t rb_cuda_err_ = (call);                                    \
    if (rb_cuda_err_ != cudaSuccess) {                                          \
      ::ringboost::detail::CudaFailed(rb_cuda_err_, #call, __FILE__, __LINE__); \
    }                                                                           \
  } while (0)

// After a kernel launch: reports a bad launch configuration at the launch site.
#define RB_CUDA_CHECK_LAUNCH() RB_CUDA_CHECK(cudaGetLastError())
