#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise NB2 log mass with broadcasting, every constant included:
//   log NB2(y | mu = exp(eta), phi) = scipy.stats.nbinom(phi, phi / (phi + exp(eta))).logpmf(y)
// (neg_binomial_2_log_kernel.hpp). y is data (counts; its partial is 0); phi <= 0 gives NaN.
// Backward: deta += y - (y + phi) sigmoid(eta - log phi), dphi as the kernel, times the adjoint.
// The composed path of the negative_binomial_log likelihood, the reference for the fused op.
Var neg_binomial_2_log_lpdf(const Var& y, const Var& eta, const Var& phi);

}  // namespace bvi::ad
