#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log Cauchy(x | loc, scale) with broadcasting, every constant included
// (scipy.stats.cauchy.logpdf):  -log(pi) - log(scale) - log(1 + z^2),  z = (x - loc)/scale,
// finite in the far tails (log(1 + z^2) is taken in logs once z^2 would overflow).
// scale <= 0 gives NaN.
// Backward, with r = z/(1 + z^2) and w = z^2/(1 + z^2):
//   dx += -2 r/scale, dloc += 2 r/scale, dscale += (2 w - 1)/scale, each times the adjoint.
Var cauchy_lpdf(const Var& x, const Var& loc, const Var& scale);

}  // namespace bvi::ad
