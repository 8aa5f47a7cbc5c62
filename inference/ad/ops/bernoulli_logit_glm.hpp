#pragma once
#include "inference/ad/ops/glm_rows.hpp"

namespace bvi::ad {

// The fused logistic-regression likelihood over a block of rows (Stan's bernoulli_logit_glm):
// for S draws,
//   out_s = sum_n log sigmoid(t_n eta_sn),  eta_sn = alpha_s + x_n . beta_s (+ offset_n),  t_n = 2 y_n - 1,
// as an S x 1 Var. With g_sn = d out_s / d eta_sn = t_n sigmoid(-t_n eta_sn), saved by the forward
// pass, the backward pass is one GEMM (glm_kernel.hpp). `alpha` (S x 1) may be null (no
// intercept); `beta` is S x D; `x` is the block's m x D features, row-major, of type T (float:
// the whole pass runs in single precision, the sums in double); `rows.y` holds the m responses
// in {0, 1}.
template <class T>
Var bernoulli_logit_glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows);

template <class T>
Var bernoulli_logit_glm(const Var* alpha, const Var& beta, const T* x, const double* y, Index rows) {
  GlmRows r;
  r.y = y;
  r.rows = rows;
  return bernoulli_logit_glm<T>(alpha, beta, x, r);
}

}  // namespace bvi::ad
