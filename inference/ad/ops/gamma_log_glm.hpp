#pragma once
#include "inference/ad/ops/glm_rows.hpp"

namespace bvi::ad {

// The fused gamma log-linear likelihood over a block of rows: for S draws
//   out_s = sum_n log Gamma(y_n | shape alpha_s, mean exp(eta_sn)),  eta_sn = alpha0_s + x_n . beta_s +
//   offset_n,
// as scipy.stats.gamma(a = alpha, scale = exp(eta) / alpha).logpdf(y) (gamma_log_kernel.hpp has
// the formula, its edges and its partials). Per draw the sum splits into
//   m (alpha log alpha - log Gamma(alpha)) + (alpha - 1) sum_n log y_n - alpha sum_n (eta_sn + y_n
//   e^-eta_sn),
// so the pass over the rows costs one exp per element and lgamma and digamma once per draw.
// `alpha` (the shape) is S x 1; alpha_s <= 0 gives NaN. rows.log_constant, when given, holds
// -log y_n (Likelihood::log_constants). d out_s / d eta_sn = alpha_s (y_n e^-eta_sn - 1), and
// d out_s / d alpha_s is accumulated per draw in the same pass. `intercept` is the model's alpha
// (the argument order of the other GLMs); the elementwise pass runs in double for float data too.
template <class T>
Var gamma_log_glm(const Var* intercept, const Var& beta, const Var& alpha, const T* x, const GlmRows& rows,
                  const Var* extra = nullptr);

}  // namespace bvi::ad
