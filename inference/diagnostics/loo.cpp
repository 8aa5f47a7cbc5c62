#include "inference/diagnostics/loo.hpp"

#include "inference/diagnostics/psis_loo.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace bvi::diagnostics {

namespace {

constexpr double kLooNaN = std::numeric_limits<double>::quiet_NaN();

// log sum_s exp(v_s), v finite or -inf.
double loo_log_sum_exp(const Eigen::Ref<const Eigen::ArrayXd>& v) {
  const double m = v.maxCoeff();
  if (!std::isfinite(m)) return m;
  return m + std::log((v - m).exp().sum());
}

}  // namespace

LooPoint loo_point(const Eigen::Ref<const Eigen::VectorXd>& log_lik,
                   const Eigen::Ref<const Eigen::VectorXd>& log_correction) {
  const Eigen::Index S = log_lik.size();
  if (S == 0) throw std::invalid_argument("loo_point: no draws");
  if (log_correction.size() != 0 && log_correction.size() != S)
    throw std::invalid_argument("loo_point: the correction has another number of draws");
  LooPoint p;
  // The common case (finite values, a fitted tail) without forming the weights.
  PsisLooSums sums;
  if (psis_loo_sums(log_lik, log_correction, &sums)) {
    p.pareto_k = sums.fit.k;
    p.status = sums.fit.status;
    p.elpd_loo = sums.elpd_loo;
    p.lpd = sums.lpd;
    p.p_loo = p.lpd - p.elpd_loo;
    p.looic = -2.0 * p.elpd_loo;
    return p;
  }
  // log r_s = correction_s - log p(y_i | theta_s); psis_log_weights shifts by the maximum itself.
  Eigen::VectorXd log_ratios = -log_lik;
  if (log_correction.size() != 0) log_ratios += log_correction;
  ParetoFit fit{};
  const Eigen::VectorXd lw = psis_log_weights(log_ratios, &fit);
  p.pareto_k = fit.k;
  p.status = fit.status;
  for (Eigen::Index s = 0; s < S; ++s)
    if (std::isnan(log_lik[s]) || log_lik[s] == std::numeric_limits<double>::infinity() ||
        std::isnan(lw[s])) {
      p.status = ParetoStatus::non_finite_ratio;
      p.pareto_k = std::numeric_limits<double>::infinity();
      p.elpd_loo = p.p_loo = p.looic = p.lpd = kLooNaN;
      return p;
    }
  p.elpd_loo = loo_log_sum_exp(lw.array() + log_lik.array());
  p.lpd = loo_log_sum_exp(log_lik.array()) - std::log(static_cast<double>(S));
  p.p_loo = p.lpd - p.elpd_loo;
  p.looic = -2.0 * p.elpd_loo;
  return p;
}

ParetoBand pareto_band(double k) {
  if (k <= 0.7) return ParetoBand::good;
  if (k <= 1.0) return ParetoBand::bad;
  return ParetoBand::very_bad;  // also NaN
}

void LooAccumulator::Running::add(double x, double n) {
  const double d = x - mean;
  mean += d / n;
  m2 += d * (x - mean);
}

void ParetoBandCounts::add(double k) {
  switch (pareto_band(k)) {
    case ParetoBand::good:
      ++good;
      break;
    case ParetoBand::bad:
      ++bad;
      break;
    case ParetoBand::very_bad:
      ++very_bad;
      break;
  }
}

void LooAccumulator::add(const LooPoint& p) {
  ++n_;
  const double n = static_cast<double>(n_);
  elpd_.add(p.elpd_loo, n);
  p_loo_.add(p.p_loo, n);
  bands_.add(p.pareto_k);
}

LooTotals LooAccumulator::totals() const {
  LooTotals t;
  t.rows = n_;
  t.good = bands_.good;
  t.bad = bands_.bad;
  t.very_bad = bands_.very_bad;
  const double n = static_cast<double>(n_);
  // sqrt(N var) with var = m2 / (N - 1): loo's sqrt(nrow * colVars).
  const auto se = [n](const Running& r) { return n > 1 ? std::sqrt(n * r.m2 / (n - 1)) : kLooNaN; };
  t.elpd_loo = {n * elpd_.mean, se(elpd_)};
  t.p_loo = {n * p_loo_.mean, se(p_loo_)};
  t.looic = {-2.0 * t.elpd_loo.estimate, 2.0 * t.elpd_loo.se};
  return t;
}


void LooSubsampleAccumulator::add_approximation(double a) {
  ++n_;
  const double d = a - mean_a_;
  mean_a_ += d / static_cast<double>(n_);
  m2_a_ += d * (a - mean_a_);
}

void LooSubsampleAccumulator::add_sampled(double a, const LooPoint& p) {
  a_.push_back(a);
  elpd_.push_back(p.elpd_loo);
  p_loo_.push_back(p.p_loo);
  bands_.add(p.pareto_k);
}

LooSubsampleTotals LooSubsampleAccumulator::totals() const {
  const auto m = static_cast<std::int64_t>(a_.size());
  if (m < 2 || m > n_) throw std::invalid_argument("loo subsample: needs 2 <= sampled rows <= rows");
  LooSubsampleTotals t;
  t.rows = n_;
  t.sampled = m;
  t.good = bands_.good;
  t.bad = bands_.bad;
  t.very_bad = bands_.very_bad;
  const double N = static_cast<double>(n_), md = static_cast<double>(m);
  // Sample means, then centred second moments (two passes over the m rows).
  double e_mean = 0, p_mean = 0;
  for (std::size_t j = 0; j < a_.size(); ++j) {
    e_mean += elpd_[j] - a_[j];
    p_mean += p_loo_[j];
  }
  e_mean /= md;
  p_mean /= md;
  double e_ss = 0, p_ss = 0, ae = 0;
  for (std::size_t j = 0; j < a_.size(); ++j) {
    const double e = (elpd_[j] - a_[j]) - e_mean;
    e_ss += e * e;
    p_ss += (p_loo_[j] - p_mean) * (p_loo_[j] - p_mean);
    ae += (a_[j] - mean_a_) * (elpd_[j] - a_[j]);  // sum_j (a_j - abar) e_j
  }
  const double e_var = e_ss / (md - 1), p_var = p_ss / (md - 1);
  const double fpc = 1.0 - md / N;  // finite population correction
  const double elpd = N * (mean_a_ + e_mean);
  const double v_sub = N * N * fpc * e_var / md;
  // sigma2 = sum a^2 + N mean(y^2 - a^2) - (elpd^2 - v_sub) / N with y = a + e and
  // sum a^2 = N abar^2 + M2_a: the N abar^2 terms cancel, leaving
  // M2_a + N [2 mean((a_j - abar) e_j) + mean(e_j^2) - ebar^2] + v_sub / N.
  const double sigma2 = m2_a_ + N * (2.0 * ae / md + e_ss / md) + v_sub / N;
  t.elpd_loo = {elpd, std::sqrt(sigma2), std::sqrt(v_sub)};
  t.p_loo = {N * p_mean, std::sqrt(N * p_var), std::sqrt(N * N * fpc * p_var / md)};
  t.looic = {-2.0 * elpd, 2.0 * t.elpd_loo.se, 2.0 * t.elpd_loo.subsampling_se};
  return t;
}

}  // namespace bvi::diagnostics
