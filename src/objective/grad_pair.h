// One row's (or one output group's) gradient and hessian: what objectives produce and the tree
// learners consume. A header of its own, without <string> or Params, so that CUDA code includes it.
#pragma once

namespace ringboost {

struct GradPair {
  float grad = 0.0f;
  float hess = 0.0f;
};

}  // namespace ringboost
