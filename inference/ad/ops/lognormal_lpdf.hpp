#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log LogNormal(x | loc, scale) with broadcasting, loc and scale the mean and sd of
// log x, every constant included (scipy.stats.lognorm.logpdf(x, s=scale, scale=exp(loc))):
//   -log(x) - log(scale) - log(2 pi)/2 - z^2/2,  z = (log(x) - loc)/scale, for x > 0;
//   -inf for x <= 0 (scipy's support is open at 0); scale <= 0 gives NaN.
// Backward: dx += -(1 + z/scale)/x, dloc += z/scale, dscale += (z^2 - 1)/scale, each times the
// adjoint.
Var lognormal_lpdf(const Var& x, const Var& loc, const Var& scale);

}  // namespace bvi::ad
