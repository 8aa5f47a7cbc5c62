#pragma once
// The ADVI run loop (Kucukelbir et al. 2017): stochastic gradient ascent on the ELBO of a
// Gaussian family, with an ELBO estimate every eval_elbo iterations for the trace and Stan's
// stopping rule, and Stan's eta adaptation for the adaptive step-size sequence.
#include <Eigen/Core>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/logger.hpp"
#include "inference/exact/expected_log_density.hpp"
#include "inference/families/family.hpp"
#include "inference/log_density.hpp"
#include "inference/sparse/block_pattern.hpp"
#include "inference/sparse/pair_curvature.hpp"
#include "models/spec/config.hpp"

namespace bvi::vi {

struct TraceRow {
  long iteration = 0;
  double seconds = 0;
  double elbo = 0;
  double rel_change = 0;  // inf for the first evaluation
};

// Everything needed to continue a run exactly where it stopped: the draws of step t depend
// only on (seed, t), so a resumed run gives the same bits as an uninterrupted one.
struct AdviState {
  long iteration = 0;  // steps completed
  double seconds = 0;  // wall time spent so far (for elbo.csv)
  Eigen::VectorXd params;
  std::vector<double> optimizer_state;
  std::vector<double> stopping_state;
  std::vector<double> convergence_state;  // the natural optimizer's rule (tol_step); empty when off
  std::vector<TraceRow> trace;
  long redrawn = 0;
  std::optional<double> eta;
};

// Hooks the run loop calls; the CLI uses them for the progress line, checkpoints and SIGTERM.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_iteration(long /*iteration*/, long /*max_iterations*/) {}
  virtual void on_elbo(const TraceRow& /*row*/, long /*max_iterations*/) {}
  virtual void on_adaptation(double /*eta*/, double /*elbo*/) {}
  // Polled every iteration: true ends the run early (interrupted, not converged), after a last
  // on_checkpoint() with the state so far.
  virtual bool stop_requested() { return false; }
  // Called every RunOptions::checkpoint_every iterations and when a stop is requested.
  virtual void on_checkpoint(const AdviState& /*state*/) {}
};

struct RunOptions {
  long checkpoint_every = 0;          // 0: only when a stop is requested
  const AdviState* resume = nullptr;  // continue from this state
  // The sparse family's precision pattern (algorithm "sparse"; models/sparse_pattern.hpp).
  std::shared_ptr<const BlockPattern> sparse_pattern;
  // Its natural step's parts where the model has the prior's expectation in closed form: the
  // likelihood alone, sampled, and the prior's part (natural_sparse_step.hpp). Null: the log
  // density is sampled whole.
  LogDensity* sparse_likelihood = nullptr;
  ExpectedLogDensity* sparse_prior = nullptr;
  // The pattern's crossed factor pairs' entries (pair_curvature.hpp); null when it has none.
  PairCurvature* sparse_crossed = nullptr;
};

struct AdviResult {
  std::unique_ptr<Family> q;
  long iterations = 0;
  bool converged = false;
  // "mean" / "median" relative ELBO change (Stan's rule), the natural optimizer's rule's sentence
  // (tol_step), or "" when it ran out.
  std::string convergence;
  bool interrupted = false;
  std::optional<double> eta;  // the adaptive optimizer's eta (given or adapted)
  std::vector<TraceRow> trace;
  long redrawn = 0;  // draws replaced because they were not finite
};

AdviResult run_advi(LogDensity& density, const spec::InferenceConfig& config, Logger& logger,
                    RunObserver* observer = nullptr, const RunOptions& options = {});

}  // namespace bvi::vi
