// The exact expected log likelihood of negative_binomial_log: a 2-D Gaussian integral per row.
//
// With u = log phi and d = eta - u, the row's log mass is (neg_binomial_2_log_kernel.hpp)
//   f(eta, u) = R(y, e^u) - log y! + y d - (y + phi) softplus(d),
// and under q the pair (eta_i, u) is bivariate normal: means (m_i, u_mean), variances (v_i, s^2),
// covariance c_i (0 under meanfield). Conditioning on u first: u = u_mean + s z, and then
//   eta | z ~ N(m_i + c_i z / s, v_i - c_i^2 / s^2),
// so E f = E_z E[f | z], the outer expectation a Gauss-Hermite rule over z (the same for every
// row: s is one number) and the inner one, in eta, the softplus expectations the logistic
// likelihood uses (SoftplusKernel, its tiers at the double-precision floor), at d's conditional
// mean m_i + c_i z / s - u and variance v_i - c_i^2 / s^2. The u rule's points follow softplus's
// tiers in s: f is analytic in u up to |Im u| = pi (log Gamma(e^u) and log Gamma(y + e^u) are
// singular where e^u is a negative integer, softplus(eta - u) where eta - u = +-i pi), the same strip
// as softplus's in eta (tests/unit/models/test_negative_binomial_expectation.cpp checks the
// values and every partial against an independent 2-D quadrature, tests/reference/
// negative_binomial_table.py).
//
// The partials come from Bonnet's and Price's theorems, d/dm = E f_eta, d/dv = E f_eta,eta / 2,
// d/dc = E f_eta,u, d/du_mean = E f_u, d/du_var = E f_uu / 2, with (phi = e^u, yp = y + phi,
// S, s1, s2 = softplus(d), sigmoid(d), sigmoid(d) sigmoid(-d); R1, R2 the rising factorial's
// derivatives in phi):
//   f_eta = y - yp s1,   f_eta,eta = -yp s2,   f_eta,u = -phi s1 + yp s2,
//   f_u  = phi R1 - y + yp s1 - phi S,
//   f_uu = phi R1 + phi^2 R2 - phi S + 2 phi s1 - yp s2,
// each linear in S, s1, s2 at a given u, so the inner expectation is exact through E S, E s1, E s2.
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "inference/math/log_factorial.hpp"
#include "inference/math/rising_factorial.hpp"
#include "inference/quadrature/gauss_hermite.hpp"
#include "models/likelihoods/expectation_kernels.hpp"
#include "models/likelihoods/negative_binomial_log.hpp"

namespace bvi::models {

namespace {

// Points of the rule over u for sd(u) = s: softplus's tiers, 256 beyond them (a q that wide is
// an early iterate, not an answer), one point at s = 0.
int u_points(double s) {
  if (!(s > 0.0)) return 1;
  for (const quadrature::Tier& t : SoftplusKernel::tiers())
    if (s <= t.max_sd) return t.points;
  return 256;
}

}  // namespace

void NegativeBinomialLog::expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows,
                                           RowExpectations& out,
                                           quadrature::ExpectationScratch& scratch) const {
  constexpr Index kRows = quadrature::ExpectationScratch::kRows;
  const Index n = eta.rows;
  if (n > kRows) throw std::logic_error("negative_binomial_log: more rows than a sub-block");
  scratch.reserve();
  const double s = std::sqrt(std::max(eta.u_var, 0.0));
  const quadrature::GaussHermiteRule& rule = quadrature::gauss_hermite(u_points(s));
  std::array<double, kRows> cond_var;
  for (Index i = 0; i < n; ++i) {
    const double c = eta.cov_u && s > 0.0 ? eta.cov_u[i] : 0.0;
    cond_var[static_cast<std::size_t>(i)] = eta.var_given_u(i, c, s);
  }
  for (Index i = 0; i < n; ++i) {
    out.value[i] = 0.0;
    out.d_mean[i] = 0.0;
    out.d_var[i] = 0.0;
    if (out.d_cov_u) out.d_cov_u[i] = 0.0;
  }
  double* dmean = scratch.arg.data();
  double *e0 = scratch.e0.data(), *e1 = scratch.e1.data(), *e2 = scratch.e2.data();
  double du_mean = 0.0, du_var = 0.0;
  for (int k = 0; k < rule.size(); ++k) {
    const double z = rule.nodes[k], w = rule.weights[k];
    const double u = eta.u_mean + s * z, phi = std::exp(u);
    for (Index i = 0; i < n; ++i)
      dmean[i] = eta.mean[i] + (eta.cov_u && s > 0.0 ? eta.cov_u[i] * (z / s) : 0.0) - u;
    quadrature::gaussian_expectations(SoftplusKernel{}, SoftplusKernel::tiers(), dmean, cond_var.data(), n,
                                      e0, e1, e2, scratch);
    double fu = 0.0, fuu = 0.0;
    for (Index i = 0; i < n; ++i) {
      const double y = rows.y[i], yp = y + phi;
      const math::RisingFactorial r = math::log_rising_factorial(y, phi, true);
      const double h1 = phi * r.d1, h2 = h1 + phi * phi * r.d2;
      out.value[i] += w * (r.value + (y == 0.0 ? 0.0 : y * dmean[i]) - yp * e0[i]);
      out.d_mean[i] += w * (y - yp * e1[i]);
      out.d_var[i] -= 0.5 * w * yp * e2[i];
      if (out.d_cov_u) out.d_cov_u[i] += w * (yp * e2[i] - phi * e1[i]);
      const double wt = ad::row_weight(rows, i);
      fu += wt * (h1 - y + yp * e1[i] - phi * e0[i]);
      fuu += wt * (h2 - phi * e0[i] + 2.0 * phi * e1[i] - yp * e2[i]);
    }
    du_mean += w * fu;
    du_var += 0.5 * w * fuu;
  }
  for (Index i = 0; i < n; ++i)
    out.value[i] += rows.log_constant ? rows.log_constant[i] : -math::log_factorial(rows.y[i]);
  out.d_u_mean += du_mean;
  out.d_u_var += du_var;
}

}  // namespace bvi::models
