#pragma once
#include "inference/ad/ops/ordinal_kernel.hpp"
#include "inference/ad/var.hpp"

namespace bvi::ad {

using detail::OrdinalLink;

// The cumulative ordinal log probabilities elementwise (ordinal_kernel.hpp): out_sn =
// log(F(c_{s,y_n} - eta_sn) - F(c_{s,y_n - 1} - eta_sn)) for categories y_n in 1 ... K (as doubles,
// the m entries of `y`), eta S x m, cutpoints S x (K - 1) increasing along each row. The
// composed path of the ordinal likelihoods (the fused one is ordinal_glm).
Var ordinal_lpmf(const double* y, const Var& eta, const Var& cutpoints, OrdinalLink link);

}  // namespace bvi::ad
