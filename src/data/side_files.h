// Side files next to a data file: `<file>.weight` (one weight per data row), `<file>.query` or
// `<file>.group` (query group sizes in row order, one per line; LightGBM and old XGBoost), and
// `<file>.lower_bound` with `<file>.upper_bound` (survival:aft's label intervals, one bound per
// data row). Blank lines and '#' comment lines are skipped, as in data files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/data.h"

namespace ringboost {

struct SideFiles {
  std::string weight;       // path of `<file>.weight`, or "" when absent
  std::string group;        // path of `<file>.query` or `<file>.group`, or ""
  std::string lower_bound;  // paths of `<file>.lower_bound` and `<file>.upper_bound`: both or ""
  std::string upper_bound;
};

// Looks for the side files of `data_path`. Both `.query` and `.group` present is an error, and so
// is one of `.lower_bound` and `.upper_bound` without the other.
SideFiles FindSideFiles(const std::string& data_path);

// One finite weight >= 0 per line, read `how`; throws "path:line:column: ..." on a malformed line.
std::vector<float> ReadWeightFile(const std::string& path, FloatReading how);

// One bound >= 0 per line: a number, or inf (no upper bound); throws "path:line:column: ..."
// otherwise. `what` names the side file's kind in the message ("lower bound"); numbers are read
// `how`.
std::vector<float> ReadBoundFile(const std::string& path, const char* what, FloatReading how);

// One group size > 0 per line.
std::vector<uint64_t> ReadGroupFile(const std::string& path);

}  // namespace ringboost
