// One row's (or one output group's) gradient and hessian: what objectives produce and the tree
// learners consume. A header of its own, without <string> or Params, so that CUDA code includes it.
#pragma once

namespace ringboost {

struct GradPair {
  float grad = 0.0f;
  float hess = 0.0f;
};

// The largest |grad| and |hess| of one output group's rows, what the gradient quantizer scales
// by (tree/gradient.h); finite is false when some value is NaN or infinite (the maxima then say
// nothing).
struct GradientMaxima {
  double grad = 0.0;
  double hess = 0.0;
  bool finite = true;
};

}  // namespace ringboost
