#pragma once
// Stan's eta adaptation for the adaptive step-size sequence: try eta in {100, 10, 1, 0.1, 0.01}
// for adapt_iterations steps each from the initial approximation, and keep the eta whose ELBO is
// best, stopping early once a smaller eta does worse than a larger one that beat the start.
#include "common/logger.hpp"
#include "inference/advi.hpp"
#include "inference/elbo.hpp"

namespace bvi::vi {

// Returns the chosen eta; `q` is left at its initial state. Throws ExitCode::software when every
// eta diverges.
double adapt_eta(ElboEstimator& estimator, Family& q, const spec::InferenceConfig& config, Logger& logger,
                 RunObserver* observer);

}  // namespace bvi::vi
