// Evaluation metrics (DESIGN.md step 10). Each reduces its partial sums through the
// Communicator so that the value over several workers equals the single-process value.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/params.h"
#include "data/data.h"
#include "rabit/communicator.h"

namespace ringboost {

class Metric {
 public:
  virtual ~Metric() = default;
  // As printed in the eval log, e.g. "auc", "error@0.7", "ndcg@5".
  virtual std::string Name() const = 0;
  // `preds` are the objective's EvalTransform of the margins (rows x groups, row-major).
  virtual double Eval(const std::vector<float>& preds, int num_groups, const DataSet& data,
                      rabit::Communicator* comm) const = 0;
  // Whether larger values are better (auc, ndcg, map...), for early stopping.
  virtual bool Maximize() const = 0;

  // Parses names like "rmse", "error@0.7", "ndcg@5", "ndcg@5-", "map@3"; throws Error naming the
  // allowed metrics for an unknown one.
  static std::unique_ptr<Metric> Create(const std::string& name, const Params& params);
};

}  // namespace ringboost
