// Side files next to a data file: `<file>.weight` (one weight per data row) and `<file>.query` or
// `<file>.group` (query group sizes in row order, one per line; LightGBM and old XGBoost). Blank
// lines and '#' comment lines are skipped, as in data files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringboost {

struct SideFiles {
  std::string weight;  // path of `<file>.weight`, or "" when absent
  std::string group;   // path of `<file>.query` or `<file>.group`, or ""
};

// Looks for the side files of `data_path`. Both `.query` and `.group` present is an error.
SideFiles FindSideFiles(const std::string& data_path);

// One finite weight >= 0 per line; throws "path:line:column: ..." on a malformed line.
std::vector<float> ReadWeightFile(const std::string& path);

// One group size > 0 per line.
std::vector<uint64_t> ReadGroupFile(const std::string& path);

}  // namespace ringboost
