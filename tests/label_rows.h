// A DataSet of labels (and optional weights and query groups) without features, for the tests
// of objectives and metrics, which read nothing else.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/params.h"
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

// survival:aft's rows: intervals [lower, upper] of the survival time (labels unused).
inline DataSet IntervalRows(std::vector<float> lower, std::vector<float> upper,
                            std::vector<float> weights = {}) {
  DataSet d = LabelRows(std::vector<float>(lower.size(), 0.0f), std::move(weights));
  d.label_lower_bound = std::move(lower);
  d.label_upper_bound = std::move(upper);
  return d;
}

// Params of survival:aft's loss: its distribution and scale.
inline Params AftParams(const std::string& dist, double sigma) {
  Params p;
  p.aft_loss_distribution = dist;
  p.aft_loss_distribution_scale = sigma;
  return p;
}

}  // namespace ringboost::test
