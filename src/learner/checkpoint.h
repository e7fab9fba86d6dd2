// Restart checkpoints (checkpoint_dir): a job that dies (mpirun ends the whole job when a rank
// dies) is started again with the same command and resumes from the newest checkpoint. A
// checkpoint is the model after some rounds: continuing training from it gives the model of an
// undisturbed run (random draws are keyed by the absolute round; the cuts are recomputed from
// the same data), so the final model file is the same.
#pragma once

#include <string>

#include "model/model.h"
#include "rabit/communicator.h"

namespace ringboost {

// dir/checkpoint-NNNNNN.model for the model after `rounds` rounds.
std::string CheckpointPath(const std::string& dir, int rounds);

// Rank 0 looks for the newest checkpoint in `dir` (the highest round; files are written whole
// under a temporary name and renamed, so every file of that name is complete) and broadcasts its
// text; every rank returns it, "" when there is none. *path names it (rank 0's path).
std::string LoadNewestCheckpoint(const std::string& dir, rabit::Communicator* comm,
                                 std::string* path);

// Writes the model after `rounds` rounds as a checkpoint (atomically) and removes the older
// checkpoints of `dir`. Rank 0 only.
void WriteCheckpoint(const std::string& dir, const Model& model, int rounds);

}  // namespace ringboost
