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
  Index rows = 0;
};

}  // namespace bvi::ad
