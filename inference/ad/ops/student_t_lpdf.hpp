#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log Student-t(x | df, loc, scale) with broadcasting, every constant included
// (scipy.stats.t.logpdf(x, df, loc, scale)):
//   log Gamma((df+1)/2) - log Gamma(df/2) - log(df pi)/2 - log(scale) - (df+1)/2 log(1 + z^2/df),
//   z = (x - loc)/scale.
// Finite in the far tails (log(1 + z^2/df) is taken in logs once z^2 would overflow) and for
// large df (no lgamma cancellation); df = +inf is the normal. df <= 0 or scale <= 0 give NaN.
// Backward: see student_t_kernel.hpp.
Var student_t_lpdf(const Var& x, const Var& df, const Var& loc, const Var& scale);

}  // namespace bvi::ad
