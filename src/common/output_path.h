// Checks, before any data is read, that every output of a task can be written: a run that would
// fail after hours of training at its last step (a missing folder in model_out) fails at once,
// naming the key and the path as the user wrote them.
#pragma once

#include <string>

#include "common/params.h"

namespace ringboost {

// What is wrong with writing the file `path` (the value of `key`), or "" when it can be written:
// its folder (after following links) must exist and take new files; `path` must not be a folder.
// Existing special files (FIFO, device) are fine: they are written in place.
std::string OutputFileProblem(const std::string& key, const std::string& path);

// Same for a folder that must exist (`must_exist`) or may be created (its nearest existing
// ancestor must be a folder that takes new entries).
std::string OutputFolderProblem(const std::string& key, const std::string& path, bool must_exist);

// Every output `params.task` writes: train (model_out, or model_dir's NNNN.model; model_dir with
// save_period; checkpoint_dir), pred (name_pred), dump (name_dump); "-" and "stdout" are standard
// output (common/file_io.h NamesStandardOutput). The first problem, or "".
std::string OutputPathsProblem(const Params& params);

}  // namespace ringboost
