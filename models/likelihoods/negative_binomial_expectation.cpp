// The exact expected log likelihood of negative_binomial_log: a 2-D Gaussian integral per row,
// reduced to two 1-D softplus expectations per row and one 1-D rule in u per distinct count.
//
// With u = log phi and d = eta - u, the row's log mass is (neg_binomial_2_log_kernel.hpp)
//   f(eta, u) = R(y, e^u) - log y! + y d - (y + phi) softplus(d),
// and under q the pair (eta_i, u) is bivariate normal: means (m_i, u_mean), variances (v_i, s^2),
// covariance c_i (0 under meanfield). Every term is one of three kinds:
//   - R(y, e^u) and its u-derivatives depend on u alone: a Gauss-Hermite rule over u, whose value
//     is the same for every row with the same count (computed once per count in a call);
//   - y g(d) for g = softplus, sigmoid, sigmoid sigmoid(-): d = eta - u is normal,
//     d ~ N(m_i - u_mean, V_i) with V_i = v_i + s^2 - 2 c_i, a 1-D softplus expectation;
//   - phi g(d) = e^u g(d): by the exponential tilt of a Gaussian, E[e^u h(eta, u)] =
//     K E~[h] with K = E e^u = exp(u_mean + s^2/2) and, under E~, (eta, u) shifted by
//     Cov((eta, u), u) = (c_i, s^2): d ~ N(m_i - u_mean + c_i - s^2, V_i), the same variance.
// So per row two softplus expectations (SoftplusKernel, its tiers at the double-precision floor)
// at the same sd, instead of one per node of a rule in u: the same integral, to the same floor,
// at a half to a sixth of the kernel evaluations, and no rising factorial per row and node.
// The tilted one is the untilted one's nodes reweighted (quadrature::
// gaussian_expectations_reflected_tilt) while the tilt is small against sd(d), as it is once q
// has narrowed: one set of kernel evaluations per row (a second call otherwise). The rule in u
// runs once per count and pass: a thread keeps its table while u's moments are the same.
// tests/unit/models/test_negative_binomial_expectation.cpp checks the values and every partial
// against an independent 2-D quadrature (tests/reference/negative_binomial_table.py). The u
// rule's points follow softplus's tiers in s: R is analytic in u up to |Im u| = pi (log Gamma(e^u)
// and log Gamma(y + e^u) are singular where e^u is a negative integer), the strip softplus's tiers
// were sized for.
//
// The partials come from Bonnet's and Price's theorems, d/dm = E f_eta, d/dv = E f_eta,eta / 2,
// d/dc = E f_eta,u, d/du_mean = E f_u, d/du_var = E f_uu / 2, with (phi = e^u, yp = y + phi,
// S, s1, s2 = softplus(d), sigmoid(d), sigmoid(d) sigmoid(-d); R1, R2 the rising factorial's
// derivatives in phi):
//   f_eta = y - yp s1,   f_eta,eta = -yp s2,   f_eta,u = -phi s1 + yp s2,
//   f_u  = phi R1 - y + yp s1 - phi S,
//   f_uu = phi R1 + phi^2 R2 - phi S + 2 phi s1 - yp s2,
// each a sum of the three kinds above. Writing E g for the untilted and E~ g for the tilted
// softplus expectations and A0, A1, A2 = E R, E phi R1, E (phi R1 + phi^2 R2) over u:
//   E f = A0 - log y! + y (m_i - u_mean) - y E S - K E~ S,
//   d/dm = y - y E s1 - K E~ s1,   d/dv = -(y E s2 + K E~ s2) / 2,
//   d/dc = y E s2 + K (E~ s2 - E~ s1),
//   E f_u = A1 - y + y E s1 + K (E~ s1 - E~ S),
// (computed as y (m_i - u_mean) - y E S = -y E S(-d) and y - y E s1 = y E s1(-d), with A0 - log y!
// taken whole: each a difference of terms near y log y or y |d| otherwise),
//   E f_uu = A2 - y E s2 + K (2 E~ s1 - E~ S - E~ s2).
// A q wider in u than softplus's tiers (s > 3: an early iterate, where K and the tilted mean
// head for overflow) takes the rule over u with the softplus expectation of eta given u at each
// node instead, as this likelihood always did.
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

constexpr Index kRows = quadrature::ExpectationScratch::kRows;

// Whose terms a thread's ExpectationScratch::count_terms holds (its address is the tag).
constexpr char kCountTermsTag = 0;

// Points of the rule over u for sd(u) = s: softplus's tiers, 256 beyond them (a q that wide is
// an early iterate, not an answer), one point at s = 0.
int u_points(double s) {
  if (!(s > 0.0)) return 1;
  for (const quadrature::Tier& t : SoftplusKernel::tiers())
    if (s <= t.max_sd) return t.points;
  return 256;
}

// A0 - log y!, A1, A2 of a count y over u = u_mean + s z: the constant taken whole
// (math::log_nb_coefficient), whose two halves, both near y log y for a large count, would leave
// their rounding in the ELBO.
std::array<double, 3> u_terms(double y, double u_mean, double s, const quadrature::GaussHermiteRule& rule) {
  std::array<double, 3> a{0.0, 0.0, 0.0};
  if (y == 0.0) return a;
  for (int k = 0; k < rule.size(); ++k) {
    const double phi = std::exp(u_mean + s * rule.nodes[k]), w = rule.weights[k];
    const math::RisingFactorial r = math::log_nb_coefficient(y, phi, true);
    const double h1 = phi * r.d1;
    a[0] += w * r.value;
    a[1] += w * h1;
    a[2] += w * (h1 + phi * phi * r.d2);
  }
  return a;
}

// The row-by-row rule over u: eta given u at each node (any s; the only way past the tiers).
void by_u_nodes(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                quadrature::ExpectationScratch& scratch, double s) {
  const Index n = eta.rows;
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

}  // namespace

void NegativeBinomialLog::expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows,
                                           RowExpectations& out,
                                           quadrature::ExpectationScratch& scratch) const {
  const Index n = eta.rows;
  if (n > kRows) throw std::logic_error("negative_binomial_log: more rows than a sub-block");
  scratch.reserve();
  const double s2 = std::max(eta.u_var, 0.0), s = std::sqrt(s2);
  if (s > SoftplusKernel::tiers().back().max_sd) return by_u_nodes(eta, rows, out, scratch, s);
  const double K = std::exp(eta.u_mean + 0.5 * s2);
  // d's variance and its two means (untilted, tilted), then the softplus expectations at each:
  // the untilted ones of -d, E softplus(-d) = E softplus(d) - E d and E sigmoid(-d) = 1 - E
  // sigmoid(d), so that y E softplus(-d), the row's y d - y softplus(d), and y E sigmoid(-d) come
  // without the difference of two terms near y |d|, whose rounding (1e-6 summed over rows with
  // counts near 10^8) stalled the exact optimizer's line search on large counts.
  // The tilted ones come from the untilted ones' nodes, reweighted, when the tilt is small against
  // d's sd (under meanfield it is s^2 / sd(d) <= s: every row, once s is below 0.01, the smallest
  // of the tiers' max_tilt), and from a second call otherwise.
  std::array<double, kRows> var, shift, t0, t1, t2;
  double* reflected = scratch.arg.data();
  for (Index i = 0; i < n; ++i) {
    const double c = eta.cov_u && s > 0.0 ? eta.cov_u[i] : 0.0;
    const auto k = static_cast<std::size_t>(i);
    var[k] = std::max(0.0, eta.var[i] + s2 - 2.0 * c);
    reflected[i] = eta.u_mean - eta.mean[i];
    shift[k] = s2 - c;  // -d's tilted mean is reflected - (c - s^2)
  }
  double *e0 = scratch.e0.data(), *e1 = scratch.e1.data(), *e2 = scratch.e2.data();  // of -d
  if (!quadrature::gaussian_expectations_reflected_tilt(SoftplusKernel{}, SoftplusKernel::tiers(), reflected,
                                                        var.data(), shift.data(), n, e0, e1, e2, t0.data(),
                                                        t1.data(), t2.data(), scratch)) {
    quadrature::gaussian_expectations(SoftplusKernel{}, SoftplusKernel::tiers(), reflected, var.data(), n, e0,
                                      e1, e2, scratch);
    std::array<double, kRows> tilted;
    for (Index i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      tilted[k] = -(reflected[i] + shift[k]);
    }
    quadrature::gaussian_expectations(SoftplusKernel{}, SoftplusKernel::tiers(), tilted.data(), var.data(), n,
                                      t0.data(), t1.data(), t2.data(), scratch);
  }
  // A0, A1, A2 per count: the counts below kTable once per pass (the thread's table is kept while
  // u's moments are the same), larger ones per row.
  auto& table = scratch.count_terms;
  constexpr int kTable = quadrature::ExpectationScratch::CountTerms::kCounts;
  table.keep_for(&kCountTermsTag, eta.u_mean, s);
  const quadrature::GaussHermiteRule& rule = quadrature::gauss_hermite(u_points(s));
  double du_mean = 0.0, du_var = 0.0;
  for (Index i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double y = rows.y[i];
    std::array<double, 3> a;
    if (y < kTable) {
      const auto j = static_cast<std::size_t>(y);
      if (!table.have[j]) {
        table.value[j] = u_terms(y, eta.u_mean, s, rule);
        table.have[j] = true;
      }
      a = table.value[j];
    } else {
      a = u_terms(y, eta.u_mean, s, rule);
    }
    // a[0] holds the row's constant -log y!, the likelihood's log_constant, whole.
    out.value[i] = a[0] - y * e0[i] - K * t0[k];
    out.d_mean[i] = y * e1[i] - K * t1[k];
    out.d_var[i] = -0.5 * (y * e2[i] + K * t2[k]);
    if (out.d_cov_u) out.d_cov_u[i] = y * e2[i] + K * (t2[k] - t1[k]);
    const double wt = ad::row_weight(rows, i);
    du_mean += wt * (a[1] - y * e1[i] + K * (t1[k] - t0[k]));
    du_var += 0.5 * wt * (a[2] - y * e2[i] + K * (2.0 * t1[k] - t0[k] - t2[k]));
  }
  out.d_u_mean += du_mean;
  out.d_u_var += du_var;
}

}  // namespace bvi::models
