#pragma once
// Monte Carlo estimates of the ELBO and of its reparameterized gradient, over S draws evaluated
// as one batch. A draw whose log density or gradient is not finite is redrawn (Stan's rule: at
// most as many redraws in total as draws requested); when that is not enough the estimate fails
// with ExitCode::software and a message naming the likely causes.
#include <Eigen/Core>
#include <cstdint>
#include <utility>

#include "inference/families/family.hpp"
#include "inference/log_density.hpp"
#include "inference/rng/normal_stream.hpp"

namespace bvi::vi {

struct ElboEstimate {
  double value = 0;  // mean log p + entropy: every constant included
  double se = 0;     // Monte Carlo standard error (the entropy is exact)
  long redrawn = 0;  // draws replaced because they were not finite
};

class ElboEstimator {
 public:
  ElboEstimator(LogDensity& density, std::uint64_t seed) : density_(density), seed_(seed) {}

  // The ELBO of `q` from `draws` draws of stream (purpose, step).
  ElboEstimate elbo(const Family& q, Eigen::Index draws, rng::Purpose purpose, std::uint64_t step);

  // The reparameterized gradient of the ELBO with respect to q.params() from `draws` draws of
  // stream (purpose, step), into `grad`. Returns the ELBO estimate of the same draws (free).
  ElboEstimate gradient(const Family& q, Eigen::Index draws, rng::Purpose purpose, std::uint64_t step,
                        Eigen::VectorXd& grad);

  // The same draws and (with `gradients`) their gradients of log p (last_grad_log_p) without the
  // ELBO's gradient: what the natural rule reads. Returns the ELBO estimate of the draws.
  ElboEstimate draws(const Family& q, Eigen::Index draws, rng::Purpose purpose, std::uint64_t step,
                     bool gradients = true);
  // Draws [first, first + count) of a request of `total` draws of stream (purpose, step), values
  // only: the same numbers as rows first.. of draws(q, total, ...), redraws included, so a caller
  // that needs only what each draw gives (log p, log q, a few columns) can hold `count` rows at a
  // time. `redrawn` is the redraws of the request's earlier ranges, and grows by this range's (the
  // limit is on the whole request's).
  void draw_range(const Family& q, Eigen::Index first, Eigen::Index count, Eigen::Index total,
                  rng::Purpose purpose, std::uint64_t step, long* redrawn);
  // The draws behind the last estimate (after any redraws): eps, zeta = transform(eps), log p.
  const Eigen::MatrixXd& last_eps() const { return eps_; }
  const Eigen::MatrixXd& last_zeta() const { return zeta_; }
  const Eigen::VectorXd& last_log_p() const { return lp_; }
  const Eigen::MatrixXd& last_grad_log_p() const { return grad_; }  // after gradient() only
  // Hands the last draws' zeta over without a copy (last_zeta() is empty afterwards).
  Eigen::MatrixXd take_zeta() { return std::move(zeta_); }

  LogDensity& density() { return density_; }
  std::uint64_t seed() const { return seed_; }

 private:
  // Draws eps for (purpose, step), evaluates, and redraws the rows that are not finite.
  // Rows [first, first + draws) of a request of `total` draws; `redrawn_before` counts toward
  // the request's redraw limit.
  long draw_and_evaluate(const Family& q, Eigen::Index draws, rng::Purpose purpose, std::uint64_t step,
                         bool grad, Eigen::Index first = 0, Eigen::Index total = -1, long redrawn_before = 0);
  ElboEstimate summarize(const Family& q, long redrawn) const;

  LogDensity& density_;
  std::uint64_t seed_;
  Eigen::MatrixXd eps_, zeta_, grad_;  // reused across steps
  Eigen::VectorXd lp_;
};

}  // namespace bvi::vi
