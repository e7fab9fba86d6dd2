// Per-file weights and query groups of a loaded part: from `label:weight` tokens or the weight
// column, `<file>.weight`, `<file>.query` / `<file>.group`, or runs of equal `qid:` values.
// A part's rows of a file are one contiguous run of the file's data rows; side files are indexed
// by counting the data rows of the file before and after the part's byte range.
#pragma once

#include <cstdint>
#include <vector>

#include "data/data.h"
#include "data/partition.h"

namespace ringboost {

struct FileRows {
  uint64_t begin = 0;                  // first row of the file in the data set
  uint64_t count = 0;                  // rows of the file in this part
  bool has_weight = false;             // some row gave a weight in the data file itself
  const char* first_no_qid = nullptr;  // line start of the first row without qid:
};

// Fills data->weight, data->label_lower_bound / label_upper_bound and data->group_ptr. The qid of
// every row (kNoQid where none) is in `qid`, or `qid` is empty when no row has one. Throws Error
// when a side file does not match its data file (row counts, both kinds of weights or groups, a
// lower bound above its upper bound), or when some files of the data set have groups (or bounds)
// and others not. The side files' numbers are read `how`.
void AttachWeightsAndGroups(const std::vector<InputFile>& files,
                            const std::vector<ByteRange>& ranges,
                            const std::vector<FileRows>& file_rows,
                            const std::vector<uint64_t>& qid, FloatReading how, DataSet* data);

}  // namespace ringboost
