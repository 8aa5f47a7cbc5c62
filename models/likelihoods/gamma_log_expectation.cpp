// The exact expected log likelihood of gamma_log: a 2-D Gaussian integral per row, closed form
// but for one 1-D rule shared by every row.
//
// With k = e^u the shape (u = log k) and l = log y, the row's log density (gamma_log_kernel.hpp) is
//   f(eta, u) = k u - log Gamma(k) + (k - 1) l - k eta - y k e^-eta,
// and under q the pair (eta_i, u) is bivariate normal: means (m_i, m_u), variances (v_i, s^2),
// covariance c_i (0 under meanfield). Every term but log Gamma(e^u) is a lognormal moment:
//   E k = K = exp(m_u + s^2/2),   E k u = K (m_u + s^2),   E k eta = K (m_i + c_i),
//   E k e^-eta = P_i = exp(m_u - m_i + (s^2 + v_i - 2 c_i)/2),
// so E f_i = K (m_u + s^2) - L0 + (K - 1) l - K (m_i + c_i) - y P_i with L0 = E log Gamma(e^u), a
// 1-D Gauss-Hermite rule in u whose value is the same for every row. Its points follow softplus's
// tiers in s, as the negative binomial's rule in u does: log Gamma(e^u) is analytic in u up to
// |Im u| = pi (e^u a negative real there), the strip softplus's tiers were sized for
// (tests/unit/models/test_gamma_log_expectation.cpp checks the values and every partial against
// an independent 2-D quadrature in scipy, tests/reference/gamma_log_table.py).
//
// The partials (dK/dm_u = K, dK/ds^2 = K/2, likewise P; L1 = E[psi(k) k] = d L0 / dm_u and
// L2 = E[psi(k) k + psi1(k) k^2] = 2 d L0 / ds^2 by Bonnet's and Price's theorems):
//   d/dm_i = d/dc_i = y P_i - K,   d/dv_i = -y P_i / 2,
//   d/dm_u = K (m_u + s^2 + 1 + l - m_i - c_i) - L1 - y P_i,
//   d/ds^2 = K (m_u + s^2 + l - m_i - c_i) / 2 + K - L2 / 2 - y P_i / 2.
#include <algorithm>
#include <cmath>
#include <limits>

#include "inference/ad/math/special_functions.hpp"
#include "inference/math/rising_factorial.hpp"
#include "inference/quadrature/gauss_hermite.hpp"
#include "models/likelihoods/expectation_kernels.hpp"
#include "models/likelihoods/gamma_log.hpp"

namespace bvi::models {

namespace {

// Points of the rule over u = log shape for sd(u) = s: softplus's tiers, 256 beyond them, one
// point at s = 0 (the same as the negative binomial's u rule).
int gamma_shape_points(double s) {
  if (!(s > 0.0)) return 1;
  for (const quadrature::Tier& t : SoftplusKernel::tiers())
    if (s <= t.max_sd) return t.points;
  return 256;
}

}  // namespace

void GammaLog::expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                                quadrature::ExpectationScratch&) const {
  const double m_u = eta.u_mean, s2 = std::max(eta.u_var, 0.0), s = std::sqrt(s2);
  // L0, L1, L2: E log Gamma(k), E psi(k) k, E [psi(k) k + psi1(k) k^2] over u = m_u + s z.
  const quadrature::GaussHermiteRule& rule = quadrature::gauss_hermite(gamma_shape_points(s));
  double L0 = 0.0, L1 = 0.0, L2 = 0.0;
  for (int j = 0; j < rule.size(); ++j) {
    const double k = std::exp(m_u + s * rule.nodes[j]), w = rule.weights[j];
    const double pk = bvi::ad::math::digamma(k) * k;
    L0 += w * bvi::ad::math::log_gamma(k);
    L1 += w * pk;
    L2 += w * (pk + bvi::math::trigamma(k) * k * k);
  }
  const double K = std::exp(m_u + 0.5 * s2);
  double du_mean = 0.0, du_var = 0.0;
  for (Index i = 0; i < eta.rows; ++i) {
    const double y = rows.y[i];
    const double l = rows.log_constant ? -rows.log_constant[i] : std::log(y);
    const double c = eta.cov_u ? eta.cov_u[i] : 0.0;
    const double mc = eta.mean[i] + c;
    const double yP = y * std::exp(m_u - eta.mean[i] + 0.5 * (s2 + eta.var[i] - 2.0 * c));
    out.value[i] = K * (m_u + s2) - L0 + (K - 1.0) * l - K * mc - yP;
    out.d_mean[i] = yP - K;
    out.d_var[i] = -0.5 * yP;
    if (out.d_cov_u) out.d_cov_u[i] = yP - K;
    const double wt = ad::row_weight(rows, i);
    du_mean += wt * (K * (m_u + s2 + 1.0 + l - mc) - L1 - yP);
    du_var += wt * (0.5 * K * (m_u + s2 + l - mc) + K - 0.5 * L2 - 0.5 * yP);
  }
  out.d_u_mean += du_mean;
  out.d_u_var += du_var;
}

}  // namespace bvi::models
