// Small data builders and checks shared by the tree tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "data/data.h"
#include "model/tree.h"

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

// The same nodes: features, thresholds, default directions and leaf values.
inline void ExpectSameTree(const RegTree& a, const RegTree& b, const std::string& what = "") {
  ASSERT_EQ(a.NumNodes(), b.NumNodes()) << what;
  for (int i = 0; i < a.NumNodes(); ++i) {
    EXPECT_EQ(a[i].feature, b[i].feature) << what << " node " << i;
    EXPECT_EQ(a[i].split_cond, b[i].split_cond) << what << " node " << i;
    EXPECT_EQ(a[i].default_left, b[i].default_left) << what << " node " << i;
    EXPECT_EQ(a[i].leaf_value, b[i].leaf_value) << what << " node " << i;
  }
}

}  // namespace ringboost::test
