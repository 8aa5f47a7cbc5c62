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
#include "inference/families/family.hpp"
#include "inference/log_density.hpp"
#include "models/spec/config.hpp"

namespace bvi::vi {

struct TraceRow {
  long iteration = 0;
  double seconds = 0;
  double elbo = 0;
  double rel_change = 0;  // inf for the first evaluation
};

// Hooks the run loop calls; the CLI uses them for the progress line and for SIGTERM.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_iteration(long /*iteration*/, long /*max_iterations*/) {}
  virtual void on_elbo(const TraceRow& /*row*/, long /*max_iterations*/) {}
  virtual void on_adaptation(double /*eta*/, double /*elbo*/) {}
  // Polled every iteration: true ends the run early (interrupted, not converged).
  virtual bool stop_requested() { return false; }
};

struct AdviResult {
  std::unique_ptr<Family> q;
  long iterations = 0;
  bool converged = false;
  std::string convergence;  // "mean" / "median" relative ELBO change, or "" when it ran out
  bool interrupted = false;
  std::optional<double> eta;  // the adaptive optimizer's eta (given or adapted)
  std::vector<TraceRow> trace;
  long redrawn = 0;  // draws replaced because they were not finite
};

AdviResult run_advi(LogDensity& density, const spec::InferenceConfig& config, Logger& logger,
                    RunObserver* observer = nullptr);

}  // namespace bvi::vi
