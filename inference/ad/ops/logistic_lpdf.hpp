#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log Logistic(x | loc, scale) with broadcasting, every constant included
// (scipy.stats.logistic.logpdf):
//   -z - 2 log(1 + exp(-z)) - log(scale)  =  -|z| - 2 log1p(exp(-|z|)) - log(scale),
// z = (x - loc)/scale; the second form (the density is even in z) never overflows exp.
// scale <= 0 gives NaN.
// Backward, since d/dz (-|z| - 2 log1p(exp(-|z|))) = -tanh(z/2):
//   dx += -tanh(z/2)/scale, dloc += tanh(z/2)/scale, dscale += (z tanh(z/2) - 1)/scale.
Var logistic_lpdf(const Var& x, const Var& loc, const Var& scale);

}  // namespace bvi::ad
