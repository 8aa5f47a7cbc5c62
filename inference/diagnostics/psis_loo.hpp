#pragma once
// loo's per-row PSIS without forming the weights (psis.hpp's psis_log_weights, then loo_point's
// two log-sum-exps, fused): one exp per draw for the normalization, one for lpd, and none for
// elpd_loo outside the smoothed tail, where lw_s + log p(y_i | theta_s) is the correction alone.
#include <Eigen/Core>

#include "inference/diagnostics/psis.hpp"

namespace bvi::diagnostics {

struct PsisLooSums {
  ParetoFit fit;
  double elpd_loo = 0;  // log sum_s exp(lw_s + log p(y_i | theta_s)), lw the normalized PSIS weights
  double lpd = 0;       // log (1/S) sum_s p(y_i | theta_s)
};

// The same quantities as loo_point's (to rounding: ~1e-15 relative) for log ratios
// log_correction - log_lik (log_correction empty: 0). Returns false, leaving *out unspecified,
// unless every value is finite and the tail was fitted with a finite k: the caller then takes the
// general path (psis_log_weights). Keeps W = exp(c - max c) per thread from row to row.
bool psis_loo_sums(const Eigen::Ref<const Eigen::VectorXd>& log_lik,
                   const Eigen::Ref<const Eigen::VectorXd>& log_correction, PsisLooSums* out);

}  // namespace bvi::diagnostics
