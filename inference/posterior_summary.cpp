#include "inference/posterior_summary.hpp"

#include <cmath>
#include <stdexcept>

#include "inference/quadrature/gauss_kronrod.hpp"

namespace bvi::vi {

namespace {
constexpr double kZ95 = 1.6448536269514722;  // Phi^-1(0.95)
}

std::pair<double, double> constrained_moments(const ad::ColumnTransform& t, double mu, double sd) {
  const double v = sd * sd;
  switch (t.bound) {
    case ad::Bound::none:
      return {mu, sd};
    case ad::Bound::lower:
    case ad::Bound::upper: {
      // a +- e^zeta: the lognormal's mean e^{mu + v/2} and variance (e^v - 1) e^{2 mu + v}.
      const double m = std::exp(mu + 0.5 * v);
      const double s = std::sqrt(std::expm1(v)) * m;
      return {t.bound == ad::Bound::lower ? t.lower + m : t.upper - m, s};
    }
    case ad::Bound::interval: {
      // a + (b - a) sigmoid(zeta): bounded, so adaptive quadrature over z in [-10, 10] is exact to
      // rounding; the variance as E[(x - c)^2] about the midpoint c, which does not cancel.
      const double a = t.lower, w = t.upper - t.lower, c = 0.5 * (t.lower + t.upper);
      const auto r = quadrature::integrate_adaptive(
          [&](double z, double* out) {
            const double phi = 0.39894228040143267794 * std::exp(-0.5 * z * z);
            const double x = a + w / (1.0 + std::exp(-(mu + sd * z)));
            out[0] = (x - c) * phi;
            out[1] = (x - c) * (x - c) * phi;
          },
          2, -10.0, 10.0, {(-mu) / sd}, 1e-13, 1e-300, 400);
      const double m = r.value[0];
      return {c + m, std::sqrt(std::max(0.0, r.value[1] - m * m))};
    }
    case ad::Bound::cholesky_corr:
    case ad::Bound::ordered:
      // A block's transform, not one column's: its summaries come from draws (fit_command).
      throw std::invalid_argument("constrained_moments: a correlation block has no per-column moments");
  }
  return {mu, sd};
}

std::vector<ParameterSummary> summarize_parameters(const Family& q, const std::vector<std::string>& names,
                                                   const std::vector<std::string>& labels,
                                                   const std::vector<ad::ColumnTransform>& transforms) {
  const Eigen::VectorXd mu = q.mean();
  const Eigen::VectorXd sd = q.marginal_sd();
  std::vector<ParameterSummary> out;
  for (Index j = 0; j < q.dim(); ++j) {
    const ad::ColumnTransform& t = transforms[static_cast<size_t>(j)];
    if (t.bound == ad::Bound::none) {
      out.push_back({names[j], labels[j], mu[j], sd[j], mu[j] - kZ95 * sd[j], mu[j], mu[j] + kZ95 * sd[j]});
      continue;
    }
    // Quantiles through the monotone transform (upper bounds reverse the order).
    Eigen::MatrixXd u(1, 3), x(1, 3);
    u << mu[j] - kZ95 * sd[j], mu[j], mu[j] + kZ95 * sd[j];
    ad::constrain_values(u, std::vector<ad::ColumnTransform>(3, t), x);
    const double lo = std::min(x(0, 0), x(0, 2)), hi = std::max(x(0, 0), x(0, 2));
    const auto [m, s] = constrained_moments(t, mu[j], sd[j]);
    out.push_back({names[j], labels[j], m, s, lo, x(0, 1), hi});
  }
  return out;
}

}  // namespace bvi::vi
