#pragma once
#include "inference/ad/ops/glm_rows.hpp"

namespace bvi::ad {

// The fused binomial-logit likelihood over a block of rows: y_n successes out of n_n trials
// (rows.trials), for S draws
//   out_s = sum_n log C(n_n, y_n) + y_n log sigmoid(eta_sn) + (n_n - y_n) log sigmoid(-eta_sn),
// eta_sn = alpha_s + x_n . beta_s (+ offset_n), as scipy.stats.binom.logpmf(y, n, sigmoid(eta)) but
// without the round trip through p, so neither tail loses digits. d out_s / d eta_sn =
// y_n sigmoid(-eta) - (n_n - y_n) sigmoid(eta). log C comes from rows.log_constant when given.
// Arguments as bernoulli_logit_glm; the elementwise pass runs in double for float data too.
template <class T>
Var binomial_logit_glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows,
                       const Var* extra = nullptr);

}  // namespace bvi::ad
