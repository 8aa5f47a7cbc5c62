#pragma once
// The exact method: maximizes the ELBO E_q[log p] + H[q] computed without Monte Carlo noise
// (ExpectedLogDensity) by natural-gradient fixed-point steps with a line search.
//
// At the optimum of a Gaussian family, dE/dmean = 0 and Sigma^-1 = -2 dE/dSigma (Opper &
// Archambeau 2009; the diagonal of it for meanfield). Each iteration proposes
//   precision  Lambda' = -2 dE/dSigma           (its diagonal for meanfield),
//   mean       m' = m + H^-1 dE/dmean,          H = -d^2E/dmean^2 (= Lambda' for fullrank),
// a damped Newton step: for meanfield H is applied to vectors by passes over the data and the
// system is solved by conjugate gradients preconditioned with Lambda' (no P x P matrix), for
// fullrank it is Lambda' itself. The step is taken along the segment from (m, Lambda) to
// (m', Lambda'), halved until the ELBO does not fall: every accepted iterate is at least as good
// as the last. It stops when the residuals of the fixed point, measured in q's own units,
//   |sd_j dE/dm_j| and |Sigma_jj Lambda'_jj - 1|  (meanfield),
//   |L' dE/dm| and |L' Lambda' L - I|             (fullrank, entrywise),
// are all below tol_grad: scale-free, so one tolerance serves posteriors of any width.
#include <optional>
#include <string>
#include <vector>

#include "common/logger.hpp"
#include "inference/advi.hpp"
#include "inference/exact/expected_log_density.hpp"

namespace bvi::vi {

struct ExactOptions {
  bool dense = false;  // fullrank
  long max_iterations = 100;
  double tol_grad = 1e-8;
  std::optional<double> tol_rel_obj;  // also stop when the relative ELBO change falls below this
  double initial_sd = 0.01;           // q's starting scale (the first step sets it from the data)
  int max_cg_iterations = 40;         // meanfield: per Newton step
  bool structured = false;            // meanfield with each group effect tied to its sd (density.parents())
  bool sparse = false;                // the precision on the density's sparse_pattern()
  // The largest move of each coordinate's mean in one iteration (empty: unbounded). A scale
  // parameter on the log scale (a group sd, a hierarchical tau) gets 1, a factor e: at the start
  // its group effects sit at 0, where the prior alone pulls log sd towards -inf, and one unbounded
  // Newton step there pins every effect at 0 for good (the "collapse" of the variance component).
  // The whole step is shortened, keeping its direction.
  Eigen::VectorXd max_mean_step;
};

struct ExactResult {
  AdviResult run;              // the family, iterations, trace, convergence
  double elbo = 0.0;           // at the final q
  double elbo_se = 0.0;        // of its sample-average terms, 0 when every term is exact
  double grad_residual = 0.0;  // the largest fixed-point residual at the final q
  long passes = 0;             // passes over the data
};

ExactResult run_exact(ExpectedLogDensity& density, const Eigen::VectorXd& initial_mean,
                      const ExactOptions& options, Logger& logger, RunObserver* observer = nullptr,
                      const RunOptions& run_options = {});

// Whether `state` can be the optimizer state run_exact saves in a checkpoint for P parameters of
// this family ("meanfield", "structured", "fullrank" or "sparse", whose pattern has `pattern_size`
// values): [passes, max_step, |direction|,
// direction, |scale_ref|, scale_ref, Anderson's history], each size one the run keeps, so that
// resuming never reads out of bounds. Empty (before the first step) fits. The numbers are assumed
// finite.
bool exact_state_fits(const std::vector<double>& state, Index P, const std::string& family,
                      Index pattern_size = 0);

// The Gaussian of a family's parameters and back (meanfield: [mean, log sd]; fullrank: [mean,
// L's lower triangle with log diagonal]; sparse: [mean, the precision on its pattern]).
GaussianQ to_gaussian(const Family& q);
void from_gaussian(const GaussianQ& g, Family& q);

}  // namespace bvi::vi
