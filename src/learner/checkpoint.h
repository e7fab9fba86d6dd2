// Restart checkpoints (checkpoint_dir): a job that dies (mpirun ends the whole job when a rank
// dies) is started again with the same command and resumes from the newest checkpoint. A
// checkpoint is the model after some rounds: continuing training from it gives the model of an
// undisturbed run (random draws are keyed by the absolute round; the cuts are recomputed from
// the same data), so the final model file is the same. Each checkpoint records the identity of
// its run (run_identity.h) in its model's `config`; only the same run resumes it.
#pragma once

#include <string>

#include "common/params.h"
#include "model/model.h"
#include "rabit/communicator.h"

namespace ringboost {

// dir/checkpoint-NNNNNN.model for the model after `rounds` rounds.
std::string CheckpointPath(const std::string& dir, int rounds);

// Every rank returns `root`'s `text`. Collective.
std::string BroadcastText(const std::string& text, int root, rabit::Communicator* comm);

struct ResumePoint {
  bool found = false;
  Model model;       // the checkpoint's model, its `config` (the identity) cleared
  std::string path;  // rank 0's path of it
};

// Collective. Rank 0 reads the newest checkpoint of params.checkpoint_dir (the highest round;
// files are written whole under a temporary name and renamed, so every file of that name is
// complete) and compares the identity it records with `identity`, and its rounds past
// `base_rounds` (model_in's) with num_round. The same run with as many or more rounds resumes
// it. Another run (or fewer rounds: another model): with checkpoint_mismatch=fresh, rank 0
// removes the checkpoints and the run starts from scratch (found = false); with error, every
// rank throws the same Error, naming what differs and how to start fresh.
ResumePoint ResumeFromCheckpointDir(const Params& params, const std::string& identity,
                                    int base_rounds, rabit::Communicator* comm);

// Writes the model after `rounds` rounds as a checkpoint (atomically) recording `identity`, and
// removes the other checkpoints of `dir`. Rank 0 only.
void WriteCheckpoint(const std::string& dir, const Model& model, int rounds,
                     const std::string& identity);

}  // namespace ringboost
