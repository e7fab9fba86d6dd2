// What determines the model of a training run, so that a checkpoint is resumed only by the run
// it belongs to (DESIGN.md "Checkpoints belong to a job"). The identity is text, "key=value"
// lines: every parameter that shapes the trees (num_round, threads, worker count, device and
// output paths do not: the same trees come out of 1 or 8 workers, CPU or GPU), and for the
// training data (and model_in, and the eval sets when early stopping watches them) the files'
// paths and sizes, the rows and columns, and a fingerprint of the parsed content. A checkpoint
// keeps it in its model's `config`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/params.h"
#include "data/data.h"
#include "rabit/communicator.h"

namespace ringboost {

// A hash of a worker's share of a data set, summed over the workers: every row's labels, weight
// and entries mixed with its global row id, every query group's size with its global id. The
// same for any worker count and thread count. Collective.
uint64_t DataFingerprint(const DataSet& data, rabit::Communicator* comm, int nthread);

// A hash of text (of a file's content, a model's), and a hash as 16 hex digits.
uint64_t TextFingerprint(const std::string& text);
std::string Hex(uint64_t v);

// The identity of a training run. Collective (the data fingerprints); file facts are rank 0's.
// `model_in_text` is model_in's content ("" when none), `model_in_rounds` its rounds.
std::string RunIdentity(const Params& params, const DataSet& train,
                        const std::vector<std::pair<std::string, DataSet>>& evals,
                        const std::string& model_in_text, int model_in_rounds,
                        rabit::Communicator* comm);

// Whether `config` (a model's) is a run's identity, as a checkpoint holds, rather than the
// objective's parameters a trained model holds.
bool IsRunIdentity(const std::string& config);

// The objective's parameters as "key=value" lines, in the parameter table's order (the
// "Objective and metrics" keys that shape the model, and max_delta_step when set, which
// count:poisson reads): what a trained model keeps in its `config`, for the record and for the
// XGBoost export's objective block.
std::string ObjectiveConfig(const Params& params);

// How `now` differs from `recorded`: "eta was '0.1', now '0.3'; data.fingerprint was '...', now
// '...'", or "" when they are the same.
std::string IdentityDifferences(const std::string& recorded, const std::string& now);

}  // namespace ringboost
