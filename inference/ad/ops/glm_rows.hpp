#pragma once
// What the fused GLM likelihoods read of a block of m data rows besides the features.
#include "inference/ad/var.hpp"

namespace bvi::ad {

struct GlmRows {
  const double* y = nullptr;       // the m responses
  const double* trials = nullptr;  // binomial: the number of trials of each row
  const double* offset = nullptr;  // added to the linear predictor (null: none)
  // Per-row terms of the log density that depend on the data alone (binomial's log C(n, y),
  // poisson's -log y!), computed once by the caller; null: the op computes them itself.
  const double* log_constant = nullptr;
  // Each row's weight w_n >= 0: out_s = sum_n w_n l(y_n | eta_sn) (null: unweighted). A fused
  // family multiplies its per-row terms, its dl/deta and its own parameters' per-row gradients by
  // w_n; the exact method's caller weights the per-row expectations (models/expected_likelihood).
  const double* weight = nullptr;
  Index rows = 0;
};

// w_n, or 1 without weights.
inline double row_weight(const GlmRows& rows, Index n) { return rows.weight ? rows.weight[n] : 1.0; }

}  // namespace bvi::ad
