// survival:cox's shared facts (the objective and the cox-nloglik metric): every row of every
// worker in XGBoost's order, |label| ascending and stable in the order of the whole data (rank
// order), so that each worker computes the risk-set sums one process computes, to the last bit.
// Labels: the survival time, negative for a right-censored row.
#pragma once

#include <cstdint>
#include <vector>

#include "data/data.h"
#include "rabit/communicator.h"

namespace ringboost {

struct CoxRow {
  float label;      // signed: > 0 an event, < 0 censored
  float value;      // the objective: the margin; the metric: exp(margin)
  uint64_t global;  // row id in the whole data
};

// Every worker's (label, values[i]) in XGBoost's LabelAbsSort order. Each worker's rows are
// `data`'s; `first_row` is the global id of its first row. A collective.
std::vector<CoxRow> GatherCoxRows(const DataSet& data, const std::vector<float>& values,
                                  uint64_t first_row, rabit::Communicator* comm);

}  // namespace ringboost
