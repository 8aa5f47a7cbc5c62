#pragma once
#include "inference/ad/ops/glm_rows.hpp"

namespace bvi::ad {

// The fused beta regression likelihood over a block of rows: for S draws
//   out_s = sum_n log Beta(y_n | mu_sn phi_s, (1 - mu_sn) phi_s),  mu_sn = expit(eta_sn),
// eta_sn = alpha_s + x_n . beta_s (+ offset_n), as scipy.stats.beta (beta_logit_kernel.hpp has the
// formula, its edges and its partials). `phi` (the precision) is S x 1; phi_s <= 0 gives NaN.
// rows.log_constant is not read (log y and log(1 - y) are computed once per row).
// d out_s / d eta_sn and d out_s / d phi_s come from the same pass (two lgamma and, with the
// gradient, two digamma per element: the cost of this likelihood). Arguments as
// bernoulli_logit_glm; the elementwise pass runs in double for float data too.
template <class T>
Var beta_logit_glm(const Var* alpha, const Var& beta, const Var& phi, const T* x, const GlmRows& rows,
                   const Var* extra = nullptr);

}  // namespace bvi::ad
