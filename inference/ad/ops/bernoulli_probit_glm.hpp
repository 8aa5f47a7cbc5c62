#pragma once
#include "inference/ad/ops/glm_rows.hpp"

namespace bvi::ad {

// The fused probit-regression likelihood over a block of rows: for S draws,
//   out_s = sum_n log Phi(t_n eta_sn),  eta_sn = alpha_s + x_n . beta_s (+ offset_n),  t_n = 2 y_n - 1,
// with a log Phi that neither underflows for t eta << 0 nor rounds to 0 for t eta >> 0
// (math/log_ndtr.hpp). d out_s / d eta_sn = t_n phi(u)/Phi(u), u = t_n eta_sn. Arguments as
// bernoulli_logit_glm; the elementwise pass runs in double for float data too.
template <class T>
Var bernoulli_probit_glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows,
                         const Var* extra = nullptr);

}  // namespace bvi::ad
