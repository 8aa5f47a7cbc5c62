#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log half-normal(x | scale) with broadcasting, every constant included
// (scipy.stats.halfnorm.logpdf(x, scale=scale)):
//   log(2/pi)/2 - log(scale) - z^2/2,  z = x/scale, for x >= 0;
//   -inf for x < 0 (outside the support); scale <= 0 gives NaN.
// Backward: dx += -z/scale, dscale += (z^2 - 1)/scale, each times the adjoint.
Var half_normal_lpdf(const Var& x, const Var& scale);

}  // namespace bvi::ad
