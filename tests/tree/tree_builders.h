// Small data builders shared by the tree tests.
#pragma once

#include <cmath>
#include <vector>

#include "data/data.h"

namespace ringboost::test {

// A DataSet from dense rows; NaN entries are left out (missing).
inline DataSet DenseRows(const std::vector<std::vector<float>>& rows,
                         const std::vector<float>& labels) {
  DataSet d;
  for (const auto& r : rows) {
    for (std::size_t f = 0; f < r.size(); ++f) {
      if (std::isnan(r[f])) continue;
      d.index.push_back(static_cast<uint32_t>(f));
      d.value.push_back(r[f]);
      d.num_col = std::max<uint32_t>(d.num_col, static_cast<uint32_t>(f + 1));
    }
    d.row_ptr.push_back(d.index.size());
  }
  d.label = labels;
  return d;
}

}  // namespace ringboost::test
