#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log half-Student-t(x | df, scale) with broadcasting: twice the Student t density
// with loc 0 on x >= 0, every constant included:
//   log 2 + log Gamma((df+1)/2) - log Gamma(df/2) - log(df pi)/2 - log(scale)
//     - (df+1)/2 log(1 + (x/scale)^2/df)                       for x >= 0,
//   -inf for x < 0 (outside the support); df <= 0 or scale <= 0 give NaN.
// Backward: the Student t partials for x, df and scale (student_t_kernel.hpp).
Var half_student_t_lpdf(const Var& x, const Var& df, const Var& scale);

}  // namespace bvi::ad
