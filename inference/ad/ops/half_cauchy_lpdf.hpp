#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log half-Cauchy(x | scale) with broadcasting, every constant included
// (scipy.stats.halfcauchy.logpdf(x, scale=scale)):
//   log(2/pi) - log(scale) - log(1 + z^2),  z = x/scale, for x >= 0;
//   -inf for x < 0 (outside the support); scale <= 0 gives NaN.
// Backward, with r = z/(1 + z^2) and w = z^2/(1 + z^2):
//   dx += -2 r/scale, dscale += (2 w - 1)/scale, each times the adjoint.
Var half_cauchy_lpdf(const Var& x, const Var& scale);

}  // namespace bvi::ad
