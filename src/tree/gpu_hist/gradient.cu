// Device side of the gradients (gradient.h): objective, scale and quantization kernels.
#include <cstring>
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>

#include "common/error.h"
#include "common/random.h"
#include "tree/gpu_hist/common.cuh"
#include "tree/gpu_hist/gradient.h"
#include "tree/gpu_hist/histogram.h"

namespace ringboost {

namespace {

// What the reduction kernels write; zeroed (bad_row: all ones) before each use.
struct Reduced {
  unsigned int max_g_bits;  // largest |g| as float bits (non-negative floats order as unsigned)
  unsigned int max_h_bits;
  unsigned long long bad_row;  // first row with a refused label or a non-finite gradient
  unsigned long long sum_g;    // sums of the quantized gradients, modulo 2^64
  unsigned long long sum_h;
  unsigned long long low_sum_g;  // sums of the low-bit ones
  unsigned long long low_sum_h;
};

constexpr int kThreads = DevicePolicy::kElementwiseBlockThreads;

__global__ void GradientKernel(ElementwiseSpec spec, const float* margins, const float* labels,
                               const float* weights, uint64_t n, int groups, GradPair* out,
                               unsigned long long* bad_row) {
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    const float label = labels[i];
    if (!ElementwiseLabelOk(spec, label)) atomicMin(bad_row, static_cast<unsigned long long>(i));
    const float weight = weights != nullptr ? weights[i] : 1.0f;
    ElementwiseGradient(spec, margins + i * groups, label, weight, out + i * groups);
  }
}

__global__ void MaxAbsKernel(const GradPair* gpair, uint64_t n, int stride, int group,
                             Reduced* red) {
  using Reduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  float max_g = 0.0f, max_h = 0.0f;
  unsigned long long bad = ~0ull;
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    const GradPair p = gpair[i * stride + group];
    if (!isfinite(p.grad) || !isfinite(p.hess)) bad = bad < i ? bad : i;
    max_g = fmaxf(max_g, fabsf(p.grad));
    max_h = fmaxf(max_h, fabsf(p.hess));
  }
  const float block_g = Reduce(temp).Reduce(max_g, cuda::maximum<float>{});
  __syncthreads();
  const float block_h = Reduce(temp).Reduce(max_h, cuda::maximum<float>{});
  if (threadIdx.x == 0) {
    atomicMax(&red->max_g_bits, __float_as_uint(block_g));
    atomicMax(&red->max_h_bits, __float_as_uint(block_h));
  }
  if (bad != ~0ull) atomicMin(&red->bad_row, bad);
}

// Whether row subsampling keeps row i of this worker (as the learner draws it on the CPU).
__device__ bool KeepsRow(const RowSampling& sampling, uint64_t i) {
  return sampling.rate >= 1.0 ||
         CounterUniform(sampling.seed, static_cast<uint64_t>(RandomStream::kRowSubsample),
                        sampling.round, sampling.first_row + i) < sampling.rate;
}

// Adds the block's sums of the values to *to_g and *to_h (modulo 2^64).
template <typename Reduce>
__device__ void AddBlockSums(typename Reduce::TempStorage& temp, long long sum_g, long long sum_h,
                             unsigned long long* to_g, unsigned long long* to_h) {
  const long long block_g = Reduce(temp).Sum(sum_g);
  __syncthreads();
  const long long block_h = Reduce(temp).Sum(sum_h);
  __syncthreads();  // temp is reused by the caller's next reduction
  if (threadIdx.x == 0) {
    atomicAdd(to_g, static_cast<unsigned long long>(block_g));
    atomicAdd(to_h, static_cast<unsigned long long>(block_h));
  }
}

// Low-bit mode's part of the quantize kernel: the scales of GradientQuantizer::LowBit, the key of
// the draws and where the packed values go (out null: exact gradients only).
struct LowBitArgs {
  double grad_scale = 1.0, hess_scale = 1.0;
  uint64_t key = 0;
  uint32_t* out = nullptr;
};

// The exact quantized gradients and, in low-bit mode, the low-bit ones, in one pass.
__global__ void QuantizeKernel(const GradPair* gpair, uint64_t n, int stride, int group,
                               double grad_scale, double hess_scale, RowSampling sampling,
                               LowBitArgs low, GradientSum* out, Reduced* red) {
  using Reduce = cub::BlockReduce<long long, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  long long sum_g = 0, sum_h = 0, low_g = 0, low_h = 0;
  const uint64_t stream = static_cast<uint64_t>(RandomStream::kLowBitGradient);
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    GradientSum q, l;
    if (KeepsRow(sampling, i)) {
      // As GradientQuantizer::Quantize: exact power-of-two product, rounded half to even.
      const GradPair p = gpair[i * stride + group];
      q.g = __double2ll_rn(static_cast<double>(p.grad) * grad_scale);
      q.h = __double2ll_rn(static_cast<double>(p.hess) * hess_scale);
      if (low.out != nullptr) {
        l = LowBitQuantize(p, low.grad_scale, low.hess_scale,
                           CounterHash(sampling.seed, stream, low.key, sampling.first_row + i));
      }
    }
    out[i] = q;
    sum_g += q.g;
    sum_h += q.h;
    if (low.out != nullptr) {
      low.out[i] = PackLowBit(l.g, l.h);
      low_g += l.g;
      low_h += l.h;
    }
  }
  AddBlockSums<Reduce>(temp, sum_g, sum_h, &red->sum_g, &red->sum_h);
  if (low.out != nullptr)
    AddBlockSums<Reduce>(temp, low_g, low_h, &red->low_sum_g, &red->low_sum_h);
}

}  // namespace

DeviceGradients::DeviceGradients(const DataSet& train, int groups,
                                 const std::vector<float>& margins)
    : rows_(train.NumRows()), groups_(groups) {
  RB_CHECK(train.label.size() == rows_ && margins.size() == rows_ * groups);
  // Element-wise objectives take one weight a row; ranking's per-group weights stay on the host.
  d_labels_.CopyFrom(train.label);
  if (train.weight.size() == rows_) d_weights_.CopyFrom(train.weight);
  d_margins_.CopyFrom(margins);
  d_gpair_.Resize(rows_ * groups);
  d_reduced_.Resize(sizeof(Reduced));
}

uint64_t DeviceGradients::Compute(const ElementwiseSpec& spec) {
  Reduced* red = reinterpret_cast<Reduced*>(d_reduced_.data());
  RB_CUDA_CHECK(cudaMemsetAsync(&red->bad_row, 0xff, sizeof(red->bad_row)));
  if (rows_ > 0) {
    GradientKernel<<<GridStrideFor(rows_, kThreads), kThreads>>>(
        spec, d_margins_.data(), d_labels_.data(), d_weights_.empty() ? nullptr : d_weights_.data(),
        rows_, groups_, d_gpair_.data(), &red->bad_row);
    RB_CUDA_CHECK_LAUNCH();
  }
  unsigned long long bad = 0;
  detail::CopyToHost(&bad, &red->bad_row, sizeof(bad));
  return bad < rows_ ? bad : rows_;
}

void DeviceGradients::Upload(const std::vector<GradPair>& gpair) {
  RB_CHECK(gpair.size() == rows_ * groups_);
  d_gpair_.CopyFrom(gpair);
}

GradientQuantizer DeviceGradients::Quantizer(int group, rabit::Communicator* comm) {
  Reduced h_red{0, 0, ~0ull, 0, 0, 0, 0};
  Reduced* red = reinterpret_cast<Reduced*>(d_reduced_.data());
  detail::CopyToDevice(red, &h_red, sizeof(h_red));
  if (rows_ > 0) {
    MaxAbsKernel<<<ResidentGrid(rows_, kThreads), kThreads>>>(d_gpair_.data(), rows_, groups_,
                                                              group, red);
    RB_CUDA_CHECK_LAUNCH();
  }
  detail::CopyToHost(&h_red, red, sizeof(h_red));
  if (h_red.bad_row < rows_) {
    GradPair p;
    detail::CopyToHost(&p, d_gpair_.data() + h_red.bad_row * groups_ + group, sizeof(p));
    RB_FAIL("non-finite gradient at row " << h_red.bad_row << ": " << p.grad << ", " << p.hess);
  }
  float max_g = 0.0f, max_h = 0.0f;
  std::memcpy(&max_g, &h_red.max_g_bits, sizeof(float));
  std::memcpy(&max_h, &h_red.max_h_bits, sizeof(float));
  return GradientQuantizer(max_g, max_h, rows_, comm);
}

GradientSum DeviceGradients::Quantize(const GradientQuantizer& quantizer, int group,
                                      const RowSampling& sampling, GradientSum* d_out,
                                      LowBitOutput* low) {
  Reduced* red = reinterpret_cast<Reduced*>(d_reduced_.data());
  RB_CUDA_CHECK(cudaMemsetAsync(&red->sum_g, 0, 4 * sizeof(red->sum_g)));
  LowBitArgs args;
  if (low != nullptr) {
    RB_CHECK(low->quantizer.low_bit());
    args =
        LowBitArgs{low->quantizer.grad_scale(), low->quantizer.hess_scale(), low->key, low->d_out};
  }
  if (rows_ > 0) {
    QuantizeKernel<<<ResidentGrid(rows_, kThreads), kThreads>>>(
        d_gpair_.data(), rows_, groups_, group, quantizer.grad_scale(), quantizer.hess_scale(),
        sampling, args, d_out, red);
    RB_CUDA_CHECK_LAUNCH();
  }
  unsigned long long sums[4];
  detail::CopyToHost(sums, &red->sum_g, sizeof(sums));
  if (low != nullptr)
    low->sum = GradientSum{static_cast<int64_t>(sums[2]), static_cast<int64_t>(sums[3])};
  return GradientSum{static_cast<int64_t>(sums[0]), static_cast<int64_t>(sums[1])};
}

}  // namespace ringboost
