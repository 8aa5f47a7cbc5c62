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
#include <vector>

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

// Rows per band, counted one k at a time.
struct ParetoBandCounts {
  std::int64_t good = 0, bad = 0, very_bad = 0;
  void add(double k);
};

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
  ParetoBandCounts bands_;
};


// Subsampling PSIS-LOO for large N (Magnusson, Riis Andersen, Jonasson and Vehtari 2020,
// "Leave-one-out cross-validation for Bayesian model comparison in large data", AISTATS; R's
// loo_subsample(estimator = "diff_srs")). A cheap approximation a_i of elpd_loo_i is known for
// every row i = 1..N; PSIS-LOO gives y_j = elpd_loo_j on a simple random sample of m rows, with
// e_j = y_j - a_j. The difference estimator and its variances:
//   elpd_loo ~ t_a + N mean_j(e_j),                 t_a = sum_i a_i,
//   v_sub    = N^2 (1 - m/N) var_j(e_j) / m           (the subsampling variance of that estimate),
//   sigma2   = [sum_i a_i^2 + N mean_j(y_j^2 - a_j^2)] - (elpd_loo^2 - v_sub) / N
//              (the estimate of N var_i(elpd_loo_i), whose root is the usual se; E elpd_loo^2 is
//              (sum y)^2 + v_sub, hence the correction),
// se = sqrt(sigma2), subsampling se = sqrt(v_sub). p_loo by plain SRS: N mean_j(p_j), subsampling
// variance N^2 (1 - m/N) var_j(p_j) / m, se sqrt(N var_j(p_j)). looic = -2 elpd_loo, its se 2 se.
// var_j is the sample variance (m - 1). Computed here with centred sums (the same quantities as
// R's srs_diff_est, written so that nothing of size N^2 is subtracted).
struct LooSubsampleEstimate {
  double estimate = 0, se = 0, subsampling_se = 0;
};

struct LooSubsampleTotals {
  std::int64_t rows = 0;     // N
  std::int64_t sampled = 0;  // m
  LooSubsampleEstimate elpd_loo, p_loo, looic;
  std::int64_t good = 0, bad = 0, very_bad = 0;  // the sampled rows per Pareto k band
};

// Rows added in a fixed order: every row's approximation (Welford: memory independent of N), and
// the m sampled rows' values (kept: memory m).
class LooSubsampleAccumulator {
 public:
  void add_approximation(double approximation);
  // A sampled row: its approximation (also given to add_approximation) and its PSIS-LOO values.
  void add_sampled(double approximation, const LooPoint& p);
  std::int64_t sampled() const { return static_cast<std::int64_t>(a_.size()); }
  // Throws std::invalid_argument unless 2 <= m <= N.
  LooSubsampleTotals totals() const;

 private:
  std::int64_t n_ = 0;
  double mean_a_ = 0, m2_a_ = 0;
  std::vector<double> a_, elpd_, p_loo_;
  ParetoBandCounts bands_;
};

}  // namespace bvi::diagnostics
