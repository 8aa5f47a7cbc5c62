#pragma once
// When the natural-gradient iterates have stopped moving: a stopping rule in q's own units.
//
// A natural step moves q by rho_t times its estimate of the way to the optimum (the mean by
// rho Lambda'^-1 g, the precision by rho (K - Lambda)), so a step divided by rho_t is that
// estimate: the distance to the optimum plus the Monte Carlo noise of one step's draws. For
// fullrank the curvature is a regression of the gradient draws on the base draws, exact for a
// Gaussian target, so on large data the distance falls to the noise within a few steps, and the
// remaining steps only average noise whose size this estimate shows.
//
// Per step, with sd_j q's marginal sds after the step and L its Cholesky factor (fullrank):
//
//   move_t = max_j max(|mu'_j - mu_j| / sd'_j, |log sd'_j - log sd_j|, |log L'_jj - log L_jj|) / rho_t
//
// The rule stops once move_t <= tol for kWindow consecutive steps, at step kMinIterations or later.
// Why that bounds the answer's error: the iterate is an exponential average of the per-step
// estimates y_t with weight rho, so its Monte Carlo sd is e sqrt(rho / (2 - rho)) for estimates
// of sd e, while move_t = |y_t - x_t| has sd about e. A window of 10 steps whose largest move over
// all 2 P coordinates stays below tol needs e below about tol / 3 (the largest of 20 P normal
// draws is near 3 sd), so the final iterate's noise is below tol sqrt(rho / (2 - rho)) / 3, about
// 0.2 tol where it stops (rho near 0.5); and a deterministic remainder shrinks by (1 - rho) per
// step, so after the window it is below tol (1 - rho)^10. With the default tol 0.05: about 0.01
// posterior sd. A noisy problem (few rows, a posterior far from Gaussian) has e above tol / 3 at
// every step, which rho does not change, so it runs to max_iterations as before.
//
// The earliest stop is the window itself, step kWindow: the bound above needs nothing more (it
// first stood at step 15, which only cost a fit started at the posterior mode, quiet from its
// first steps, five steps more).
#include <string>
#include <vector>

#include "inference/families/family.hpp"

namespace bvi::vi {

// The largest move of a step in q's units (see above), not yet divided by rho: `before` and
// `after` are the same family.
double natural_step_move(const Family& before, const Family& after);

class NaturalConvergence {
 public:
  static constexpr long kMinIterations = 10;  // = kWindow: no floor of its own
  static constexpr long kWindow = 10;

  explicit NaturalConvergence(double tol) : tol_(tol) {}

  // Records step t's move divided by its rho; true once the rule has fired (from then on).
  bool record(long t, double move_over_rho);
  bool converged() const { return converged_; }
  // Why it stopped, for the summary.
  std::string reason() const;

  // For checkpoints: {consecutive quiet steps, their largest move}; set_state(state()) is the
  // identity. Throws std::invalid_argument for a state no run writes.
  std::vector<double> state() const { return {static_cast<double>(quiet_), largest_}; }
  void set_state(const std::vector<double>& state);

 private:
  double tol_;
  long quiet_ = 0;      // consecutive steps with move_t <= tol, up to the last recorded one
  double largest_ = 0;  // the largest move_t of those steps
  bool converged_ = false;
};

}  // namespace bvi::vi
