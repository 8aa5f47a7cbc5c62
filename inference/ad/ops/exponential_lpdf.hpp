#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log Exponential(x | rate) with broadcasting, every constant included
// (scipy.stats.expon.logpdf(x, scale=1/rate)):
//   log(rate) - rate x  for x >= 0;  -inf for x < 0 (outside the support); rate <= 0 gives NaN.
// Backward: dx += -rate, drate += 1/rate - x, each times the adjoint.
Var exponential_lpdf(const Var& x, const Var& rate);

}  // namespace bvi::ad
