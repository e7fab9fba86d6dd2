// CudaTrainer; stub.cc stands for this file in a build without CUDA.
#ifdef RINGBOOST_USE_CUDA

#include "tree/gpu_hist/trainer.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "common/error.h"
#include "common/logging.h"
#include "common/timer.h"
#include "tree/gpu_hist/common.h"
#include "tree/gpu_hist/gradient.h"
#include "tree/gpu_hist/grower.h"
#include "tree/gpu_hist/matrix.h"
#include "tree/predict_device.h"

namespace ringboost {
namespace {

// The worker's rank among the processes on its machine, from the launcher's environment.
int LocalRank() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "LOCAL_RANK"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return std::atoi(value);
  }
  return 0;
}

}  // namespace

int OpenDevice(const std::string& device) {
  std::string reason;
  const int count = DeviceCount(&reason);
  if (count == 0) RB_FAIL("device=" << device << ": no CUDA device: " << reason);
  int ordinal = LocalRank() % count;
  if (device != "cuda") {
    ordinal = std::atoi(device.c_str() + 5);  // "cuda:N", checked by the parameter table
    if (ordinal >= count) {
      RB_FAIL("device=" << device << ": there are " << count << " CUDA device(s), 0 to "
                        << count - 1);
    }
  }
  SetDevice(ordinal);
  return ordinal;
}

namespace {

// Device memory training takes: the matrix (`matrix_bytes`, DeviceMatrixBytes of its shape, which
// costs a bundled matrix a pass over its rows: computed once); per row the quantized gradients
// (16 bytes; 4 more in low-bit mode, which this ignores), raw gradients and margins (12 a group),
// label and weight (8), the two row-id buffers and the partition's marks and scan (16); and the
// histograms of two levels, each its built children and their siblings.
std::size_t TrainingBytes(const BinnedMatrix& matrix, const HistogramCuts& cuts,
                          std::size_t matrix_bytes, const TreeParams& params, int groups) {
  const uint64_t rows = matrix.NumRows();
  uint64_t level_nodes = params.max_depth > 0 ? uint64_t{1} << std::min(params.max_depth, 16) : 256;
  if (params.max_leaves > 0) level_nodes = std::min<uint64_t>(level_nodes, params.max_leaves);
  level_nodes =
      std::min<uint64_t>(level_nodes, std::max<uint64_t>(rows, 1));  // a row a node at most
  const uint64_t hist_bytes = 2 * level_nodes * cuts.TotalBins() * sizeof(GradientSum);
  return matrix_bytes + rows * (40 + 12 * groups) + hist_bytes;
}

class CudaTrainer : public RoundTrainer {
 public:
  explicit CudaTrainer(const TrainerSetup& setup)
      : params_(setup.params),
        comm_(setup.comm),
        groups_(setup.groups),
        matrix_(DeviceMatrix::Create(setup.matrix, setup.cuts, setup.nthread)),
        gradients_(setup.train, groups_, setup.margins),
        d_quantized_(setup.train.NumRows()),
        low_bit_(UsesLowBitGradients(setup.params, setup.matrix.NumRows(), setup.comm)),
        grower_(&matrix_, &setup.cuts, setup.params, setup.comm, low_bit_) {
    if (low_bit_) d_low_bit_.Resize(setup.train.NumRows());
    grower_.SetConstraints(setup.constraints);
  }

  std::vector<RegTree> BoostOneRound(const Objective& objective, const DataSet& train,
                                     int round) override {
    round_timer_.Start();
    ComputeGradients(objective, train, round);
    const RowSampling sampling{params_.subsample, params_.seed, static_cast<uint64_t>(round),
                               train.first_row};
    std::vector<RegTree> trees;
    for (int k = 0; k < groups_; ++k) {
      auto start = PhaseTimer::Clock::now();
      const GradientQuantizer quantizer = gradients_.Quantizer(k, comm_);
      const uint64_t tree_key = static_cast<uint64_t>(round) * groups_ + k;
      DeviceHistGradients grad;
      if (low_bit_) {
        // As HistTrainer: the structure from low-bit gradients, the leaves from the exact ones.
        DeviceGradients::LowBitOutput low{quantizer.LowBit(), tree_key, d_low_bit_.data(), {}};
        gradients_.Quantize(quantizer, k, sampling, d_quantized_.data(), &low);
        timer_.Add("device quantize", start);
        grad.low_bit = d_low_bit_.data();
        trees.push_back(grower_.Grow(grad, low.sum, low.quantizer, tree_key));
        grower_.RefitLeaves(d_quantized_.data(), quantizer, &trees.back());
      } else {
        const GradientSum sum = gradients_.Quantize(quantizer, k, sampling, d_quantized_.data());
        timer_.Add("device quantize", start);
        grad.exact = d_quantized_.data();
        trees.push_back(grower_.Grow(grad, sum, quantizer, tree_key));
      }
      grower_.UpdatePredictions(trees.back(), gradients_.d_margins(), groups_, k);
    }
    last_round_s_ = round_timer_.Stop();
    return trees;
  }
  std::vector<float> Margins() const override { return gradients_.MarginsToHost(); }
  std::string PhaseReport() const override {
    return PhaseTimer::Join(timer_.Report(), grower_.timer().Report());
  }
  double LastRoundSeconds() const override { return last_round_s_; }

 private:
  // On the device for an element-wise objective; else on the host from the margins.
  void ComputeGradients(const Objective& objective, const DataSet& train, int round) {
    const auto start = PhaseTimer::Clock::now();
    ElementwiseSpec spec;
    if (objective.Elementwise(&spec)) {
      const uint64_t bad = gradients_.Compute(spec);
      if (bad < train.NumRows())
        RB_FAIL(train.name << ": " << objective.CheckLabel(train.label[bad]));
    } else {
      objective.GetGradient(train, gradients_.MarginsToHost(), round, &host_gpair_);
      gradients_.Upload(host_gpair_);
    }
    timer_.Add("device gradients", start);
  }

  TreeParams params_;
  rabit::Communicator* comm_;
  int groups_;
  DeviceMatrix matrix_;
  DeviceGradients gradients_;
  DeviceBuffer<GradientSum> d_quantized_;
  bool low_bit_;                      // quantized_grad: trees from low-bit gradients
  DeviceBuffer<uint32_t> d_low_bit_;  // low-bit mode: the packed gradients (PackLowBit)
  DeviceTreeGrower grower_;
  std::vector<GradPair> host_gpair_;
  DeviceEventTimer round_timer_;
  double last_round_s_ = 0.0;
  PhaseTimer timer_;
};

}  // namespace

std::unique_ptr<RoundTrainer> CreateCudaTrainer(const std::string& device, TrainerSetup setup) {
  const BinnedMatrix& matrix = setup.matrix;
  const HistogramCuts& cuts = setup.cuts;
  const int ordinal = OpenDevice(device);
  std::ostringstream what;
  what << "training " << matrix.NumRows() << " rows with " << cuts.TotalBins() << " bins";
  const std::size_t matrix_bytes = DeviceMatrixBytes(EllpackShapeOf(matrix, cuts));
  const std::size_t need = TrainingBytes(matrix, cuts, matrix_bytes, setup.params, setup.groups);
  const DeviceMemoryInfo memory = QueryDeviceMemory();
  constexpr double kMiB = 1024.0 * 1024.0;
  RB_LOG(kInfo, "device cuda:" << ordinal << ": " << what.str() << " takes about " << need / kMiB
                               << " MiB of its memory (the binned matrix " << matrix_bytes / kMiB
                               << " MiB); " << memory.free_bytes / kMiB << " MiB free");
  CheckDeviceMemoryFits(need, memory.free_bytes, what.str());
  return std::make_unique<CudaTrainer>(setup);
}

std::vector<float> PredictMarginOnDevice(const std::string& device, const Model& model,
                                         const DataSet& data, int num_rounds) {
  OpenDevice(device);
  return PredictMarginOnDevice(model, data, num_rounds);
}

}  // namespace ringboost

#endif  // RINGBOOST_USE_CUDA
