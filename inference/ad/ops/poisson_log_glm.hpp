#pragma once
#include "inference/ad/ops/glm_rows.hpp"

namespace bvi::ad {

// The fused Poisson log-linear likelihood over a block of rows: for S draws
//   out_s = sum_n y_n eta_sn - exp(eta_sn) - log y_n!,  eta_sn = alpha_s + x_n . beta_s + offset_n,
// as scipy.stats.poisson.logpmf(y, exp(eta)) but without the round trip through log(exp(eta)).
// (offset_n carries log exposure.) d out_s / d eta_sn = y_n - exp(eta_sn). Where exp(eta)
// overflows (eta > 709.78) the value is -inf, as it truly is in double, and the derivative is
// held at -DBL_MAX rather than -inf, so a zero feature multiplies it to 0 in the backward GEMM
// instead of to NaN. -log y! comes from rows.log_constant when given. Arguments as
// bernoulli_logit_glm; the elementwise pass runs in double for float data too.
template <class T>
Var poisson_log_glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows,
                    const Var* extra = nullptr);

}  // namespace bvi::ad
