#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log Laplace(x | loc, scale) with broadcasting, every constant included
// (scipy.stats.laplace.logpdf):  -log(2 scale) - |z|,  z = (x - loc)/scale.
// scale <= 0 gives NaN.
// Backward: dx += -sign(z)/scale, dloc += sign(z)/scale, dscale += (|z| - 1)/scale, each times
// the adjoint; at z = 0, where |z| has no derivative, sign(0) = 0 (the mean of the one-sided ones).
Var laplace_lpdf(const Var& x, const Var& loc, const Var& scale);

}  // namespace bvi::ad
