#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log N(y | mu, sigma) with broadcasting, every constant included:
//   -0.5 z^2 - log(sigma) - 0.5 log(2 pi),  z = (y - mu) / sigma.
// sigma <= 0 gives NaN (as scipy.stats.norm.logpdf), so a bad draw is rejected, not fatal.
// Backward: dy += -z/sigma, dmu += z/sigma, dsigma += (z^2 - 1)/sigma, each times the adjoint.
Var normal_lpdf(const Var& y, const Var& mu, const Var& sigma);

}  // namespace bvi::ad
