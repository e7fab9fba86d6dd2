// Gradients on the device (DESIGN.md step 5, GPU). The training margins live on the device. An
// element-wise objective's gradients are computed there by ElementwiseGradient, the function the
// CPU objectives call, so they are the same bits; other objectives (ranking) compute them on the
// host from the margins fetched back, and upload them. Then, per output group, the largest |g|
// and |h| give GradientQuantizer's agreed scales, and the quantized integers are written, zero
// for the rows that row subsampling leaves out: the same integers as GradientQuantizer::
// QuantizeAll with the learner's keep mask.
#pragma once

#ifdef RINGBOOST_USE_CUDA

#include <cstdint>
#include <vector>

#include "data/data.h"
#include "objective/elementwise.h"
#include "objective/grad_pair.h"
#include "rabit/communicator.h"
#include "tree/gpu_hist/common.h"
#include "tree/gradient.h"

namespace ringboost {

// Row subsampling of a round: row i is kept when CounterUniform(seed, kRowSubsample, round,
// first_row + i) < rate (every row when rate >= 1), as the learner draws it on the CPU.
struct RowSampling {
  double rate = 1.0;
  uint64_t seed = 0;
  uint64_t round = 0;
  uint64_t first_row = 0;
};

class DeviceGradients {
 public:
  // Uploads the labels and weights of `train` and its margins (rows x groups).
  DeviceGradients(const DataSet& train, int groups, const std::vector<float>& margins);

  float* d_margins() { return d_margins_.data(); }
  std::vector<float> MarginsToHost() const { return d_margins_.ToHost(); }

  // The gradients of every row and group from the margins, on the device. Returns the first row
  // whose label `spec` refuses (NumRows() when none).
  uint64_t Compute(const ElementwiseSpec& spec);
  // Gradients computed on the host (rows x groups).
  void Upload(const std::vector<GradPair>& gpair);
  // Gradients of group `group` back on the host (tests).
  std::vector<GradPair> GradientsToHost() const { return d_gpair_.ToHost(); }

  // GradientQuantizer of group `group` (the same collective calls as the host constructor).
  // Throws, naming the row, where a gradient is not finite.
  GradientQuantizer Quantizer(int group, rabit::Communicator* comm);
  // Low-bit mode's second output of Quantize (gradient.h): the quantizer's LowBit(), the tree's
  // key of the draws (those of GradientQuantizer::QuantizeAllLowBit, keyed by (sampling.seed,
  // key, global row)), where the values go, packed (PackLowBit; 0 for rows not kept), and their
  // sum over this worker's rows (written by Quantize).
  struct LowBitOutput {
    GradientQuantizer quantizer;
    uint64_t key = 0;
    uint32_t* d_out = nullptr;
    GradientSum sum;
  };
  // d_out[i] = the quantized gradient of row i in group `group` (0 for rows not kept), and with
  // `low` its low-bit gradient too, in the same pass; returns this worker's sum of the former.
  GradientSum Quantize(const GradientQuantizer& quantizer, int group, const RowSampling& sampling,
                       GradientSum* d_out, LowBitOutput* low = nullptr);

  uint64_t NumRows() const { return rows_; }

 private:
  uint64_t rows_;
  int groups_;
  DeviceBuffer<float> d_labels_;
  DeviceBuffer<float> d_weights_;  // empty: every weight 1
  DeviceBuffer<float> d_margins_;
  DeviceBuffer<GradPair> d_gpair_;
  DeviceBuffer<uint8_t> d_reduced_;  // what the reduction kernels write (gradient.cu)
};

}  // namespace ringboost

#endif  // RINGBOOST_USE_CUDA
