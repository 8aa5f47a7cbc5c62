#include "inference/diagnostics/loo.hpp"

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

void LooAccumulator::add(const LooPoint& p) {
  ++n_;
  const double n = static_cast<double>(n_);
  elpd_.add(p.elpd_loo, n);
  p_loo_.add(p.p_loo, n);
  switch (pareto_band(p.pareto_k)) {
    case ParetoBand::good:
      ++good_;
      break;
    case ParetoBand::bad:
      ++bad_;
      break;
    case ParetoBand::very_bad:
      ++very_bad_;
      break;
  }
}

LooTotals LooAccumulator::totals() const {
  LooTotals t;
  t.rows = n_;
  t.good = good_;
  t.bad = bad_;
  t.very_bad = very_bad_;
  const double n = static_cast<double>(n_);
  // sqrt(N var) with var = m2 / (N - 1): loo's sqrt(nrow * colVars).
  const auto se = [n](const Running& r) { return n > 1 ? std::sqrt(n * r.m2 / (n - 1)) : kLooNaN; };
  t.elpd_loo = {n * elpd_.mean, se(elpd_)};
  t.p_loo = {n * p_loo_.mean, se(p_loo_)};
  t.looic = {-2.0 * t.elpd_loo.estimate, 2.0 * t.elpd_loo.se};
  return t;
}

}  // namespace bvi::diagnostics
