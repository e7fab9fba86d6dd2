// Query groups of a data set, for the ranking objectives and the metrics that read them: the
// group layout and per-group weights.
#pragma once

#include <cstdint>
#include <vector>

#include "common/error.h"
#include "data/data.h"

namespace ringboost::query_groups {

// The query groups of `data` as offsets (size groups + 1). Data without groups is one group, as
// XGBoost does; no rows (a worker's empty part) are no group, not an empty one. Throws Error when
// the groups do not cover the rows exactly.
inline std::vector<uint32_t> GroupPtrOf(const DataSet& data) {
  const uint64_t rows = data.NumRows();
  if (data.group_ptr.empty()) {
    if (rows == 0) return {0u};
    return {0u, static_cast<uint32_t>(rows)};
  }
  if (data.group_ptr.front() != 0 || data.group_ptr.back() != rows) {
    RB_FAIL(data.name << ": query groups cover " << data.group_ptr.back()
                      << " rows but the data has " << rows
                      << "; the .group/.query file must list every row once");
  }
  return data.group_ptr;
}

// Weight of query group `k` (XGBoost weighs ranking data per group). Accepts one weight per
// group (XGBoost's layout) or one per row, in which case the group's first row gives it; the two
// readings agree when every group has one row.
inline float GroupWeight(const DataSet& data, const std::vector<uint32_t>& gptr, size_t k) {
  const size_t groups = gptr.size() - 1;
  if (data.weight.empty()) return 1.0f;
  if (data.weight.size() == groups) return data.weight[k];
  if (data.weight.size() == data.NumRows()) return data.weight[gptr[k]];
  RB_FAIL(data.name << ": " << data.weight.size() << " weights for " << data.NumRows()
                    << " rows in " << groups
                    << " query groups; give one weight per row or per group");
}

}  // namespace ringboost::query_groups
