#pragma once
#include "inference/ad/ops/glm_rows.hpp"
#include "inference/ad/ops/ordinal_kernel.hpp"

namespace bvi::ad {

// The fused cumulative ordinal likelihood over a block of rows: for S draws
//   out_s = sum_n log(F(c_{s,y_n} - eta_sn) - F(c_{s,y_n - 1} - eta_sn)),
// eta_sn = alpha_s + x_n . beta_s (+ offset_n), F = expit or Phi (ordinal_kernel.hpp), categories
// rows.y in 1 ... K, `cutpoints` S x (K - 1). d out / d eta through the GLM kernel's GEMM, d out /
// d cutpoints from the same elementwise pass (each element touches at most two cutpoints).
// Arguments as bernoulli_logit_glm; the elementwise pass runs in double for float data too.
template <class T>
Var ordinal_glm(const Var* alpha, const Var& beta, const Var& cutpoints, const T* x, const GlmRows& rows,
                detail::OrdinalLink link, const Var* extra = nullptr);

}  // namespace bvi::ad
