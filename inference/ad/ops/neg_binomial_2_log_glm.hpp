#pragma once
#include "inference/ad/ops/glm_rows.hpp"

namespace bvi::ad {

// The fused NB2 log-linear likelihood over a block of rows: for S draws
//   out_s = sum_n log NB2(y_n | mu = exp(eta_sn), phi_s),  eta_sn = alpha_s + x_n . beta_s + offset_n,
// as scipy.stats.nbinom(phi, phi / (phi + mu)).logpmf(y) (neg_binomial_2_log_kernel.hpp has the
// formula, its edges and its partials). `phi` is S x 1; phi_s <= 0 gives NaN. -log y! comes
// from rows.log_constant when given. d out_s / d eta_sn = y_n - (y_n + phi_s) sigmoid(eta_sn -
// log phi_s), and d out_s / d phi_s is accumulated per draw in the same pass. Arguments as
// bernoulli_logit_glm; the elementwise pass runs in double for float data too.
template <class T>
Var neg_binomial_2_log_glm(const Var* alpha, const Var& beta, const Var& phi, const T* x, const GlmRows& rows,
                           const Var* extra = nullptr);

}  // namespace bvi::ad
