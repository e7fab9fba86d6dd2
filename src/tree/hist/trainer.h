// The CPU's RoundTrainer (tree/trainer.h): the objective's gradients on the host, row subsampling
// keyed by global row id, quantization per output group, and a TreeGrower that grows each tree
// and adds its leaf values to the training margins through the rows' final partition.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/timer.h"
#include "tree/gradient.h"
#include "tree/hist/grower.h"
#include "tree/trainer.h"

namespace ringboost {

class HistTrainer : public RoundTrainer {
 public:
  explicit HistTrainer(TrainerSetup setup);

  std::vector<RegTree> BoostOneRound(const Objective& objective, const DataSet& train,
                                     int round) override;
  std::vector<float> Margins() const override { return margins_; }
  std::string PhaseReport() const override;
  double LastRoundSeconds() const override { return -1.0; }

 private:
  TreeParams params_;
  rabit::Communicator* comm_;
  int nthread_;
  int groups_;
  std::vector<float> margins_;  // rows x groups
  bool low_bit_;                // quantized_grad: trees from low-bit gradients (gradient.h)
  TreeGrower grower_;
  // A round's gradients, raw and quantized: kept between rounds, so that each round writes into
  // pages it already has (new vectors cost 24 MB of zeroing and page faults a round at 1M rows).
  std::vector<GradPair> gpair_;
  std::vector<GradientSum> qgrad_;
  std::vector<GradientSum> low_grad_;  // low-bit mode: the rounded gradients the tree grows from
  PhaseTimer timer_;
};

}  // namespace ringboost
