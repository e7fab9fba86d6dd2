#include "tree/hist/trainer.h"

#include <utility>

#include "common/error.h"
#include "common/random.h"

namespace ringboost {

HistTrainer::HistTrainer(TrainerSetup setup)
    : params_(setup.params),
      comm_(setup.comm),
      nthread_(setup.nthread),
      groups_(setup.groups),
      margins_(std::move(setup.margins)),
      low_bit_(UsesLowBitGradients(setup.params, setup.matrix.NumRows(), setup.comm)),
      grower_(&setup.matrix, &setup.cuts, setup.params, setup.comm, setup.nthread, low_bit_) {
  grower_.SetConstraints(std::move(setup.constraints));
}

std::vector<RegTree> HistTrainer::BoostOneRound(const Objective& objective, const DataSet& train,
                                                int round) {
  auto start = PhaseTimer::Clock::now();
  // The objective's row loop may give the quantizer's maxima too (one pass over the gradients
  // fewer); where it does not, or some gradient is not finite, the quantizer scans for them (and
  // names the first such row).
  const bool have_maxima =
      objective.GetGradientAndMaxima(train, margins_, round, &gpair_, &maxima_);
  timer_.Add("gradients", start);
  RB_CHECK(gpair_.size() == train.NumRows() * groups_);
  std::vector<uint8_t> keep;
  if (params_.subsample < 1.0) {
    keep.resize(train.NumRows());
    const uint64_t first = train.first_row;
    for (uint64_t i = 0; i < keep.size(); ++i) {
      keep[i] = CounterUniform(params_.seed, static_cast<uint64_t>(RandomStream::kRowSubsample),
                               static_cast<uint64_t>(round), first + i) < params_.subsample;
    }
  }
  std::vector<RegTree> trees;
  for (int k = 0; k < groups_; ++k) {
    start = PhaseTimer::Clock::now();
    const GradientQuantizer quantizer =
        have_maxima && maxima_[k].finite
            ? GradientQuantizer(maxima_[k].grad, maxima_[k].hess, train.NumRows(), comm_)
            : GradientQuantizer(gpair_, groups_, k, comm_, nthread_);
    const uint64_t tree_key = static_cast<uint64_t>(round) * groups_ + k;
    if (low_bit_) {  // the exact values only for the refit, which quantizes its rows itself
      const GradientQuantizer low = quantizer.LowBit();
      const GradientSum low_sum = low.QuantizeAllLowBit(
          gpair_, groups_, k, keep, params_.seed, tree_key, train.first_row, nthread_, &low_grad_);
      timer_.Add("quantize", start);
      trees.push_back(grower_.Grow(low_grad_, low_sum, low, tree_key));
      grower_.RefitLeaves(gpair_, groups_, k, keep, quantizer, &trees.back());
    } else {
      const GradientSum sum = quantizer.QuantizeAll(gpair_, groups_, k, keep, nthread_, &qgrad_);
      timer_.Add("quantize", start);
      trees.push_back(grower_.Grow(qgrad_, sum, quantizer, tree_key));
    }
    grower_.UpdatePredictions(trees.back(), &margins_, groups_, k);
  }
  return trees;
}

std::string HistTrainer::PhaseReport() const {
  return PhaseTimer::Join(timer_.Report(), grower_.timer().Report());
}

}  // namespace ringboost
