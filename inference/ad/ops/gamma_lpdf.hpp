#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log Gamma(x | shape, rate) with broadcasting, every constant included
// (scipy.stats.gamma.logpdf(x, a=shape, scale=1/rate)):
//   shape log(rate) - log Gamma(shape) + (shape - 1) log(x) - rate x   for x >= 0,
// where (shape - 1) log(x) is 0 for shape = 1 (so x = 0 gives log(rate), +inf for shape < 1,
// -inf for shape > 1, as scipy); -inf for x < 0 and x = +inf (scipy gives NaN at +inf for
// shape > 1: inf - inf; the density's limit is 0). shape <= 0 or rate <= 0 give NaN.
// Backward: dx += (shape - 1)/x - rate, dshape += log(rate) + log(x) - digamma(shape),
// drate += shape/rate - x, each times the adjoint.
Var gamma_lpdf(const Var& x, const Var& shape, const Var& rate);

}  // namespace bvi::ad
