#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise gamma log-linear log density with broadcasting, every constant included:
//   log Gamma(y | shape alpha, mean exp(eta)) = scipy.stats.gamma(a = alpha, scale = exp(eta) /
//   alpha).logpdf(y)
// (gamma_log_kernel.hpp has the formula and its partials). y <= 0 gives -inf, alpha <= 0 NaN.
// Backward: dy += (alpha - 1)/y - alpha e^-eta, deta += alpha (y e^-eta - 1),
// dalpha += log alpha + 1 - digamma(alpha) + log y - eta - y e^-eta, each times the adjoint.
// The composed path of the gamma_log likelihood, the reference for the fused op.
Var gamma_log_lpdf(const Var& y, const Var& eta, const Var& alpha);

}  // namespace bvi::ad
