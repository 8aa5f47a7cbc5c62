// The exact expected log likelihood of beta_logit: a 2-D Gaussian integral per row.
//
// With u = log phi, a = phi expit(eta) and b = phi expit(-eta), the row's log density
// (beta_logit_kernel.hpp) is
//   f(eta, u) = log Gamma(phi) - log Gamma(a) - log Gamma(b) + (a - 1) log y + (b - 1) log(1 - y),
// and under q the pair (eta_i, u) is bivariate normal: means (m_i, u_mean), variances (v_i, s^2),
// covariance c_i (0 under meanfield). As for the negative binomial, u first: u = u_mean + s z, then
// eta | z ~ N(m_i + c_i z / s, v_i - c_i^2 / s^2). Unlike the negative binomial's, the inner
// integral has no softplus form (log Gamma of phi expit(eta) couples both), so it is a Gauss-Hermite
// rule too: a tensor rule per row, each axis's points by softplus's tiers in its sd, one tier up (f is
// analytic in eta and in u up to |Im| = pi: there expit(eta) and e^u reach the negative reals where log Gamma
// has its poles). Tested against an independent 2-D quadrature in scipy
// (tests/unit/models/test_beta_logit_expectation.cpp, tests/reference/beta_logit_table.py).
//
// The partials (Bonnet's and Price's theorems: d/dm = E f_eta, d/dv = E f_eta,eta / 2,
// d/dc = E f_eta,u, d/du_mean = E f_u, d/du_var = E f_uu / 2), with s1 = expit(eta),
// s0 = expit(-eta), q = phi s1 s0, g = psi(b) - psi(a) + log y - log(1 - y):
//   f_eta = q g,   f_eta,eta = q (s0 - s1) g - q^2 (psi1(a) + psi1(b)),
//   f_eta,u = q g + q (b psi1(b) - a psi1(a)),
//   f_u = phi psi(phi) - a psi(a) - b psi(b) + a log y + b log(1 - y),
//   f_uu = f_u + phi^2 psi1(phi) - a^2 psi1(a) - b^2 psi1(b).
// Its cost is the tensor rule's points times six special functions per row: 16 to 64 points per
// row near the optimum of a large dataset (both sds small), thousands for an early, wide q.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "inference/ad/math/special_functions.hpp"
#include "inference/math/rising_factorial.hpp"
#include "inference/quadrature/gauss_hermite.hpp"
#include "models/likelihoods/beta_logit.hpp"
#include "models/likelihoods/expectation_kernels.hpp"

namespace bvi::models {

namespace {

// Points of a rule for an axis of sd `s`: softplus's tiers one tier up (log Gamma(phi expit(eta))
// is larger on the strip than softplus, by about phi: the tier softplus needs left errors near
// 5e-12 at phi = 12 against the scipy table), 256 beyond them, one at s = 0.
int beta_axis_points(double s) {
  if (!(s > 0.0)) return 1;
  const std::vector<quadrature::Tier>& tiers = SoftplusKernel::tiers();
  for (std::size_t k = 0; k < tiers.size(); ++k)
    if (s <= tiers[k].max_sd) return k + 1 < tiers.size() ? tiers[k + 1].points : 256;
  return 256;
}

}  // namespace

void BetaLogit::expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                                 quadrature::ExpectationScratch&) const {
  namespace am = bvi::ad::math;
  const double s = std::sqrt(std::max(eta.u_var, 0.0));
  const quadrature::GaussHermiteRule& rule_u = quadrature::gauss_hermite(beta_axis_points(s));
  double du_mean = 0.0, du_var = 0.0;
  for (Index i = 0; i < eta.rows; ++i) {
    const double y = rows.y[i], ly = std::log(y), l1y = std::log1p(-y), D = ly - l1y;
    const double c = eta.cov_u && s > 0.0 ? eta.cov_u[i] : 0.0;
    const double cond_sd = std::sqrt(std::max(0.0, eta.var[i] - c * (c / (s * s))));
    const quadrature::GaussHermiteRule& rule_e = quadrature::gauss_hermite(beta_axis_points(cond_sd));
    double E = 0.0, Ee = 0.0, Eee = 0.0, Eeu = 0.0, Eu = 0.0, Euu = 0.0;
    for (int k = 0; k < rule_u.size(); ++k) {
      const double z = rule_u.nodes[k], w = rule_u.weights[k];
      const double u = eta.u_mean + s * z, phi = std::exp(u);
      const double lg_phi = am::log_gamma(phi), phi_psi = phi * am::digamma(phi);
      const double phi2_psi1 = phi * phi * bvi::math::trigamma(phi);
      const double centre = eta.mean[i] + (s > 0.0 ? c * (z / s) : 0.0);
      for (int j = 0; j < rule_e.size(); ++j) {
        const double x = centre + cond_sd * rule_e.nodes[j], wj = w * rule_e.weights[j];
        const double e = std::exp(-std::abs(x)), inv = 1.0 / (1.0 + e);
        const double s1 = x >= 0.0 ? inv : e * inv, s0 = x >= 0.0 ? e * inv : inv;
        const double a = phi * s1, b = phi * s0;
        const double pa = am::digamma(a), pb = am::digamma(b);
        const double p1a = bvi::math::trigamma(a), p1b = bvi::math::trigamma(b);
        const double q = phi * s1 * s0, g = pb - pa + D;
        const double f = lg_phi - am::log_gamma(a) - am::log_gamma(b) + (a - 1.0) * ly + (b - 1.0) * l1y;
        const double fu = phi_psi - a * pa - b * pb + a * ly + b * l1y;
        E += wj * f;
        Ee += wj * q * g;
        Eee += wj * (q * (s0 - s1) * g - q * q * (p1a + p1b));
        Eeu += wj * (q * g + q * (b * p1b - a * p1a));
        Eu += wj * fu;
        Euu += wj * (fu + phi2_psi1 - a * a * p1a - b * b * p1b);
      }
    }
    out.value[i] = E;
    out.d_mean[i] = Ee;
    out.d_var[i] = 0.5 * Eee;
    if (out.d_cov_u) out.d_cov_u[i] = Eeu;
    const double wt = ad::row_weight(rows, i);
    du_mean += wt * Eu;
    du_var += 0.5 * wt * Euu;
  }
  out.d_u_mean += du_mean;
  out.d_u_var += du_var;
}

}  // namespace bvi::models
