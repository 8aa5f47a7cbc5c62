#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise beta regression log density with broadcasting, every constant included:
//   log Beta(y | mu phi, (1 - mu) phi), mu = expit(eta) = scipy.stats.beta(mu phi, (1 - mu) phi).logpdf(y)
// (beta_logit_kernel.hpp has the formula and its partials). y outside (0, 1) gives -inf, phi <= 0
// NaN. The composed path of the beta_logit likelihood, the reference for the fused op.
Var beta_logit_lpdf(const Var& y, const Var& eta, const Var& phi);

}  // namespace bvi::ad
