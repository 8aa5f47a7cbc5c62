#pragma once
#include "inference/ad/ops/glm_rows.hpp"

namespace bvi::ad {

// The fused lognormal regression likelihood over a block of rows: for S draws
//   out_s = sum_n -log y_n - z_sn^2 / 2 - log sigma_s - log sqrt(2 pi),  z_sn = (log y_n - eta_sn) / sigma_s,
// eta_sn = alpha_s + x_n . beta_s (+ offset_n), as scipy.stats.lognorm(s = sigma, scale =
// exp(eta)).logpdf(y): the normal density of log y plus the Jacobian -log y. rows.log_constant, when given,
// holds -log y_n (Likelihood::log_constants), so log y costs nothing in the pass; y <= 0 gives -inf (scipy's
// support is open at 0) and sigma_s <= 0 gives NaN. `sigma` is S x 1.
//   d out_s / d eta_sn = z_sn / sigma_s,   d out_s / d sigma_s = sum_n (z_sn^2 - 1) / sigma_s.
// Arguments as bernoulli_logit_glm; the elementwise pass runs in double for float data too.
template <class T>
Var lognormal_glm(const Var* alpha, const Var& beta, const Var& sigma, const T* x, const GlmRows& rows,
                  const Var* extra = nullptr);

}  // namespace bvi::ad
