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
// row near the optimum of a large dataset (both sds small), thousands for an early, wide q. So a
// row's points go through SIMD packets (log Gamma, psi and psi1 of a and b together:
// log_gamma_derivatives_packet.hpp), and the u-nodes' log Gamma(phi), psi(phi) and psi1(phi) are
// computed once per call, not once per row. A row with a point whose a or b leaves that function's
// domain (a below 1e-150: |eta| beyond ~340) or is NaN takes the scalar functions instead, as
// every row did before (tests/unit/models/test_beta_logit_vectorized.cpp compares the two).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "inference/ad/math/log_gamma_derivatives_packet.hpp"
#include "inference/ad/math/special_functions.hpp"
#include "inference/math/rising_factorial.hpp"
#include "inference/quadrature/gauss_hermite.hpp"
#include "models/likelihoods/beta_logit.hpp"
#include "models/likelihoods/expectation_kernels.hpp"

namespace bvi::models {

namespace {

namespace ei = Eigen::internal;
using Packet = ei::packet_traits<double>::type;
constexpr int kWidth = ei::packet_traits<double>::size;

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

// Below sd 0.15, where a large dataset's q sits, tiers of beta's own, measured by
// tests/reference/beta_logit_tiers.py against a 40 x 60 rule (phi 0.5 to 1e4, E eta -6 to 4,
// y 0.001 to 0.999: every value and partial at that sweep's float64 floor, 1e-12 relative to phi
// 1000 and 1e-11 at 1e4, where one point fewer leaves 7e-11 to 9e-11): for the eta axis 2 points
// to sd 0.0005, 3 to 0.005, 4 to 0.01, 6 to 0.05, 8 to 0.15 (the one-up tiers gave 6, 8 and 12
// from 0.01 up, and a row's points are the pass's cost). The eta axis takes them always (its
// nodes vary eta alone, by the conditional sd).
int beta_fine_points(double s) {
  if (s > 0.0 && s <= 0.0005) return 2;
  if (s > 0.0 && s <= 0.005) return 3;
  if (s > 0.0 && s <= 0.01) return 4;
  if (s > 0.0 && s <= 0.05) return 6;
  if (s > 0.0 && s <= 0.15) return 8;
  return beta_axis_points(s);
}

// The u axis's when eta and u are independent, from the same sweep: 2 points to sd 0.001, 3 to
// 0.01 (log Gamma(phi) varies less in u than log Gamma(phi expit(eta)) in eta), then the eta
// axis's. With a covariance each u node also moves eta's centre, by c z / s, a variation the
// axis's own sd does not measure, so that axis keeps the one-up tiers.
int beta_u_points(double s) {
  if (s > 0.0 && s <= 0.001) return 2;
  if (s > 0.0 && s <= 0.01) return 3;
  return beta_fine_points(s);
}

constexpr int kMaxNodes = 256;  // the largest rule beta_axis_points asks for

// A node of the rule in u: everything that depends on phi alone, shared by every row.
struct PhiNodes {
  int size = 0;
  double z[kMaxNodes], w[kMaxNodes], phi[kMaxNodes], lg_phi[kMaxNodes], phi_psi[kMaxNodes], phi2_psi1[kMaxNodes];
};

// One row's quadrature: the log terms of y, and where its eta-points are.
struct Row {
  double ly, l1y, d;         // log y, log(1 - y), their difference
  double mean, c, s, cond_sd;  // eta's mean, Cov(eta, u), u's sd, eta's sd given u
  const quadrature::GaussHermiteRule* rule;
  double centre(double z) const { return mean + (s > 0.0 ? c * (z / s) : 0.0); }
};

// E f, E f_eta, E f_eta,eta, E f_eta,u, E f_u, E f_uu (the header's formulas).
struct Sums {
  double f = 0.0, e = 0.0, ee = 0.0, eu = 0.0, u = 0.0, uu = 0.0;
};

// The row point by point with the scalar special functions (lgamma_r, digamma, trigamma).
Sums scalar_row(const Row& r, const PhiNodes& nodes) {
  namespace am = bvi::ad::math;
  Sums out;
  for (int k = 0; k < nodes.size; ++k) {
    const double w = nodes.w[k], phi = nodes.phi[k], centre = r.centre(nodes.z[k]);
    for (int j = 0; j < r.rule->size(); ++j) {
      const double x = centre + r.cond_sd * r.rule->nodes[j], wj = w * r.rule->weights[j];
      const double e = std::exp(-std::abs(x)), inv = 1.0 / (1.0 + e);
      const double s1 = x >= 0.0 ? inv : e * inv, s0 = x >= 0.0 ? e * inv : inv;
      const double a = phi * s1, b = phi * s0;
      const double pa = am::digamma(a), pb = am::digamma(b);
      const double p1a = bvi::math::trigamma(a), p1b = bvi::math::trigamma(b);
      const double q = phi * s1 * s0, g = pb - pa + r.d;
      const double f = nodes.lg_phi[k] - am::log_gamma(a) - am::log_gamma(b) + (a - 1.0) * r.ly + (b - 1.0) * r.l1y;
      const double fu = nodes.phi_psi[k] - a * pa - b * pb + a * r.ly + b * r.l1y;
      out.f += wj * f;
      out.e += wj * q * g;
      out.ee += wj * (q * (s0 - s1) * g - q * q * (p1a + p1b));
      out.eu += wj * (q * g + q * (b * p1b - a * p1a));
      out.u += wj * fu;
      out.uu += wj * (fu + nodes.phi2_psi1[k] - a * a * p1a - b * b * p1b);
    }
  }
  return out;
}

// The same sums over SIMD packets: the row's points (u-nodes times eta-nodes, flattened) are
// gathered in chunks of at most kChunk, padded to whole packets with points of weight 0.
// Returns false, leaving `out` unspecified, when some point's a or b is outside
// [kLogGammaDerivativesMin, kLogGammaDerivativesMax] or NaN.
class PacketRow {
 public:
  bool run(const Row& r, const PhiNodes& nodes, Sums& out) {
    const Packet zero = ei::pset1<Packet>(0.0);
    acc_[0] = acc_[1] = acc_[2] = acc_[3] = acc_[4] = acc_[5] = bad_ = zero;
    const int ne = r.rule->size();
    int len = 0;
    for (int k = 0; k < nodes.size; ++k) {
      if (len + ne > kChunk) {
        flush(r, len);
        len = 0;
      }
      const double centre = r.centre(nodes.z[k]), w = nodes.w[k];
      for (int j = 0; j < ne; ++j, ++len) {
        x_[len] = centre + r.cond_sd * r.rule->nodes[j];
        w_[len] = w * r.rule->weights[j];
        phi_[len] = nodes.phi[k];
        lg_phi_[len] = nodes.lg_phi[k];
        phi_psi_[len] = nodes.phi_psi[k];
        phi2_psi1_[len] = nodes.phi2_psi1[k];
      }
    }
    flush(r, len);
    if (ei::predux_any(bad_)) return false;
    out.f = ei::predux(acc_[0]);
    out.e = ei::predux(acc_[1]);
    out.ee = ei::predux(acc_[2]);
    out.eu = ei::predux(acc_[3]);
    out.u = ei::predux(acc_[4]);
    out.uu = ei::predux(acc_[5]);
    return true;
  }

 private:
  static constexpr int kChunk = kMaxNodes;  // a whole eta-rule always fits

  void flush(const Row& r, int len) {
    for (; len % kWidth != 0; ++len) {  // padding: a = b = 1/2, weight 0
      x_[len] = w_[len] = lg_phi_[len] = phi_psi_[len] = phi2_psi1_[len] = 0.0;
      phi_[len] = 1.0;
    }
    const Packet one = ei::pset1<Packet>(1.0), zero = ei::pset1<Packet>(0.0);
    const Packet lo = ei::pset1<Packet>(ad::math::kLogGammaDerivativesMin),
                 hi = ei::pset1<Packet>(ad::math::kLogGammaDerivativesMax);
    const Packet ly = ei::pset1<Packet>(r.ly), l1y = ei::pset1<Packet>(r.l1y), d = ei::pset1<Packet>(r.d);
    for (int i = 0; i < len; i += kWidth) {
      const Packet x = ei::pload<Packet>(x_ + i), w = ei::pload<Packet>(w_ + i), phi = ei::pload<Packet>(phi_ + i);
      // expit(x) and expit(-x) from e = exp(-|x|), as the scalar row
      const Packet e = ei::pexp(ei::pnegate(ei::pabs(x))), inv = ei::pdiv(one, ei::padd(one, e));
      const Packet pos = ei::pcmp_le(zero, x), e_inv = ei::pmul(e, inv);
      const Packet s1 = ei::pselect(pos, inv, e_inv), s0 = ei::pselect(pos, e_inv, inv);
      const Packet a = ei::pmul(phi, s1), b = ei::pmul(phi, s0);
      bad_ = ei::por(bad_, ei::por(ei::por(ei::pcmp_lt_or_nan(a, lo), ei::pcmp_lt(hi, a)),
                                   ei::por(ei::pcmp_lt_or_nan(b, lo), ei::pcmp_lt(hi, b))));
      const auto ga = ad::math::packet_log_gamma_derivatives(a), gb = ad::math::packet_log_gamma_derivatives(b);
      const Packet q = ei::pmul(a, s0), g = ei::padd(ei::psub(gb.psi, ga.psi), d);
      const Packet qg = ei::pmul(q, g);
      // f = log Gamma(phi) - log Gamma(a) - log Gamma(b) + (a - 1) log y + (b - 1) log(1 - y)
      const Packet f = ei::padd(ei::psub(ei::psub(ei::pload<Packet>(lg_phi_ + i), ga.log_gamma), gb.log_gamma),
                                ei::padd(ei::pmul(ei::psub(a, one), ly), ei::pmul(ei::psub(b, one), l1y)));
      // f_u = phi psi(phi) - a psi(a) - b psi(b) + a log y + b log(1 - y)
      const Packet fu = ei::padd(ei::psub(ei::psub(ei::pload<Packet>(phi_psi_ + i), ei::pmul(a, ga.psi)), ei::pmul(b, gb.psi)),
                                 ei::padd(ei::pmul(a, ly), ei::pmul(b, l1y)));
      const Packet a_p1a = ei::pmul(a, ga.psi1), b_p1b = ei::pmul(b, gb.psi1);
      acc_[0] = ei::pmadd(w, f, acc_[0]);
      acc_[1] = ei::pmadd(w, qg, acc_[1]);
      // q (s0 - s1) g - q^2 (psi1(a) + psi1(b))
      acc_[2] = ei::pmadd(w, ei::psub(ei::pmul(qg, ei::psub(s0, s1)), ei::pmul(ei::pmul(q, q), ei::padd(ga.psi1, gb.psi1))), acc_[2]);
      // q g + q (b psi1(b) - a psi1(a))
      acc_[3] = ei::pmadd(w, ei::padd(qg, ei::pmul(q, ei::psub(b_p1b, a_p1a))), acc_[3]);
      acc_[4] = ei::pmadd(w, fu, acc_[4]);
      // f_u + phi^2 psi1(phi) - a^2 psi1(a) - b^2 psi1(b)
      acc_[5] = ei::pmadd(w, ei::psub(ei::psub(ei::padd(fu, ei::pload<Packet>(phi2_psi1_ + i)), ei::pmul(a, a_p1a)), ei::pmul(b, b_p1b)), acc_[5]);
    }
  }

  static constexpr int kCap = kChunk + kWidth;
  alignas(64) double x_[kCap], w_[kCap], phi_[kCap], lg_phi_[kCap], phi_psi_[kCap], phi2_psi1_[kCap];
  Packet acc_[6], bad_;
};

}  // namespace

void BetaLogit::expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                                 quadrature::ExpectationScratch&) const {
  namespace am = bvi::ad::math;
  const double s = std::sqrt(std::max(eta.u_var, 0.0));
  const quadrature::GaussHermiteRule& rule_u =
      quadrature::gauss_hermite(eta.cov_u ? beta_axis_points(s) : beta_u_points(s));
  // About 12 KB each: on the stack, so the pass allocates nothing.
  PhiNodes nodes;
  nodes.size = rule_u.size();
  for (int k = 0; k < nodes.size; ++k) {
    const double z = rule_u.nodes[k], phi = std::exp(eta.u_mean + s * z);
    nodes.z[k] = z;
    nodes.w[k] = rule_u.weights[k];
    nodes.phi[k] = phi;
    nodes.lg_phi[k] = am::log_gamma(phi);
    nodes.phi_psi[k] = phi * am::digamma(phi);
    nodes.phi2_psi1[k] = phi * phi * bvi::math::trigamma(phi);
  }
  PacketRow packets;
  double du_mean = 0.0, du_var = 0.0;
  for (Index i = 0; i < eta.rows; ++i) {
    const double y = rows.y[i];
    Row r;
    r.ly = std::log(y);
    r.l1y = std::log1p(-y);
    r.d = r.ly - r.l1y;
    r.mean = eta.mean[i];
    r.c = eta.cov_u && s > 0.0 ? eta.cov_u[i] : 0.0;
    r.s = s;
    r.cond_sd = std::sqrt(eta.var_given_u(i, r.c, s));
    r.rule = &quadrature::gauss_hermite(beta_fine_points(r.cond_sd));
    Sums t;
    if (!packets.run(r, nodes, t)) t = scalar_row(r, nodes);
    out.value[i] = t.f;
    out.d_mean[i] = t.e;
    out.d_var[i] = 0.5 * t.ee;
    if (out.d_cov_u) out.d_cov_u[i] = t.eu;
    const double wt = ad::row_weight(rows, i);
    du_mean += wt * t.u;
    du_var += 0.5 * wt * t.uu;
  }
  out.d_u_mean += du_mean;
  out.d_u_var += du_var;
}

}  // namespace bvi::models
