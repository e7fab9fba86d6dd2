// A DataSet of labels (and optional weights and query groups) without features, for the tests
// of objectives and metrics, which read nothing else.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "data/data.h"

namespace ringboost::test {

inline DataSet LabelRows(std::vector<float> labels, std::vector<float> weights = {},
                         std::vector<uint32_t> groups = {}) {
  DataSet d;
  d.row_ptr.assign(labels.size() + 1, 0);
  d.label = std::move(labels);
  d.weight = std::move(weights);
  d.group_ptr = std::move(groups);
  d.name = "test.libsvm";
  return d;
}

}  // namespace ringboost::test
