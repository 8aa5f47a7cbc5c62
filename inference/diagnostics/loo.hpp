#pragma once
// Pareto smoothed importance sampling leave-one-out cross-validation (PSIS-LOO; Vehtari, Gelman
// and Gabry 2017), from draws of a fitted approximation q instead of the posterior (Magnusson,
// Andersen, Jonasson and Vehtari 2019, "Bayesian leave-one-out cross-validation for large data").
//
// For row i and draws theta_s ~ q, s = 1..S, the importance ratio of the leave-one-out posterior
// p(theta | y_-i) against q is
//   r_is  ∝  p(theta_s | y) / q(theta_s) / p(y_i | theta_s),
//   log r_is = log p(theta_s, y) - log q(theta_s) - log p(y_i | theta_s)        (+ a constant),
// the first two terms ("the correction") shared by every row. The ratios are Pareto smoothed per
// row (psis.hpp, r_eff = 1: q's draws are independent) to normalized log weights lw_is, and
//   elpd_loo_i = log sum_s exp(lw_is + log p(y_i | theta_s)),
//   lpd_i      = log (1/S) sum_s p(y_i | theta_s),     p_loo_i = lpd_i - elpd_loo_i,
//   looic_i    = -2 elpd_loo_i.
// lpd_i is the plain mean over the draws, as R's loo computes it (pointwise_loo_calcs, for
// loo_approximate_posterior as for loo): with draws from q rather than the posterior p_loo is then
// what loo reports for the same draws, and can be negative when q is wider than the posterior.
// With no correction (posterior draws) this is loo(log_lik, r_eff = 1).
//
// The totals are sums over rows with standard errors sqrt(N var_i(x_i)) (sample variance, N - 1),
// loo's table_of_estimates; the rows are accumulated in row order so the result does not depend
// on how they were computed (threads, ranks).
#include <Eigen/Core>
#include <cstdint>

#include "inference/diagnostics/psis.hpp"

namespace bvi::diagnostics {

struct LooPoint {
  double elpd_loo = 0;
  double p_loo = 0;
  double looic = 0;
  double lpd = 0;
  double pareto_k = 0;
  ParetoStatus status = ParetoStatus::fitted;
};

// One row: `log_lik` holds log p(y_i | theta_s) for the S draws, `log_correction` log p(theta_s, y)
// - log q(theta_s) (any constant may be added), or is empty for posterior draws. Throws
// std::invalid_argument when the sizes differ or S is 0. A log likelihood that is NaN or +inf, or a
// correction that is NaN or +inf, gives NaN values and status non_finite_ratio; a log likelihood of
// -inf (y_i impossible at a draw) makes that draw's ratio +inf, and the same.
LooPoint loo_point(const Eigen::Ref<const Eigen::VectorXd>& log_lik,
                   const Eigen::Ref<const Eigen::VectorXd>& log_correction);

// The Pareto k bands loo prints: good k <= 0.7 < bad <= 1 < very bad (NaN counts as very bad).
enum class ParetoBand { good, bad, very_bad };
ParetoBand pareto_band(double k);

struct LooEstimate {
  double estimate = 0;
  double se = 0;
};

struct LooTotals {
  std::int64_t rows = 0;
  LooEstimate elpd_loo, p_loo, looic;
  std::int64_t good = 0, bad = 0, very_bad = 0;  // rows per Pareto k band
};

// Sums and standard errors over rows added one at a time in a fixed order: Welford's running
// mean and sum of squared deviations per quantity (memory independent of N).
class LooAccumulator {
 public:
  void add(const LooPoint& p);
  LooTotals totals() const;

 private:
  struct Running {
    double mean = 0, m2 = 0;
    void add(double x, double n);
  };
  std::int64_t n_ = 0;
  Running elpd_, p_loo_;
  std::int64_t good_ = 0, bad_ = 0, very_bad_ = 0;
};

}  // namespace bvi::diagnostics
