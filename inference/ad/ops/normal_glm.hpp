#pragma once
#include "inference/ad/ops/glm_rows.hpp"

namespace bvi::ad {

// The fused Gaussian linear-regression likelihood over a block of rows: for S draws
//   out_s = sum_n -z_sn^2 / 2 - log sigma_s - log sqrt(2 pi),  z_sn = (y_n - eta_sn) / sigma_s,
// eta_sn = alpha_s + x_n . beta_s (+ offset_n), as scipy.stats.norm.logpdf(y, eta, sigma);
// sigma_s <= 0 gives NaN (as scipy), so a bad draw is rejected, not fatal. `sigma` is S x 1.
//   d out_s / d eta_sn = z_sn / sigma_s,   d out_s / d sigma_s = sum_n (z_sn^2 - 1) / sigma_s,
// the second accumulated per draw in the same pass. Arguments as bernoulli_logit_glm; the
// elementwise pass runs in double for float data too.
template <class T>
Var normal_glm(const Var* alpha, const Var& beta, const Var& sigma, const T* x, const GlmRows& rows,
               const Var* extra = nullptr);

}  // namespace bvi::ad
