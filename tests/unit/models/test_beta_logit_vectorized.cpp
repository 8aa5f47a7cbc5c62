// beta_logit's exact expectation runs each row's quadrature points through SIMD packets
// (log_gamma_derivatives_packet.hpp). Here it is compared with the same tensor Gauss-Hermite rule
// evaluated point by point with glibc's lgamma_r and the scalar digamma and trigamma, written out
// below (what the expectation computed before it was vectorized), over rows from the tails of y
// and eta to early, wide q's (256 points per axis), with and without a covariance, and rows whose
// a or b leaves the packet function's domain (|eta| near 400), which take the scalar functions.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <vector>

#include "inference/ad/math/special_functions.hpp"
#include "inference/math/rising_factorial.hpp"
#include "inference/quadrature/gauss_hermite.hpp"
#include "models/likelihoods/expectation_kernels.hpp"
#include "models/likelihoods/likelihood.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_beta_logit_vectorized {

using namespace bvi;

namespace {

struct Sums {
  double value = 0, dm = 0, dv = 0, dc = 0, du_mean = 0, du_var = 0;
};

// The rule's points for an axis of sd s: softplus's tiers one tier up, 256 beyond, 1 at s = 0
// (beta_logit_expectation.cpp's rule, repeated so that the two sums are over the same points).
int points(double s) {
  if (!(s > 0.0)) return 1;
  const auto& tiers = models::SoftplusKernel::tiers();
  for (std::size_t k = 0; k < tiers.size(); ++k)
    if (s <= tiers[k].max_sd) return k + 1 < tiers.size() ? tiers[k + 1].points : 256;
  return 256;
}
// The eta axis's: beta's own tiers below sd 0.15 (2, 3, 4, 6, 8 points to 0.0005, 0.005, 0.01,
// 0.05, 0.15), the above beyond (the u axis keeps the above: every batch here has a covariance).
int eta_points(double s) {
  if (s > 0.0 && s <= 0.0005) return 2;
  if (s > 0.0 && s <= 0.005) return 3;
  if (s > 0.0 && s <= 0.01) return 4;
  if (s > 0.0 && s <= 0.05) return 6;
  if (s > 0.0 && s <= 0.15) return 8;
  return points(s);
}

double lgamma_glibc(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

// One row, point by point: eta | u ~ N(m + c z / s, v - c^2 / s^2), u = u_mean + s z.
Sums scalar_reference(double y, double m, double v, double c, double u_mean, double u_var) {
  const double s = std::sqrt(u_var), cond_sd = std::sqrt(std::max(0.0, s > 0.0 ? v - c * c / u_var : v));
  const auto& ru = quadrature::gauss_hermite(points(s));
  const auto& re = quadrature::gauss_hermite(eta_points(cond_sd));
  const double ly = std::log(y), l1y = std::log1p(-y);
  Sums out;
  double ee = 0, uu = 0;
  for (int k = 0; k < ru.size(); ++k) {
    const double phi = std::exp(u_mean + s * ru.nodes[k]);
    for (int j = 0; j < re.size(); ++j) {
      const double x = m + (s > 0.0 ? c * ru.nodes[k] / s : 0.0) + cond_sd * re.nodes[j];
      const double w = ru.weights[k] * re.weights[j];
      const double s1 = 1.0 / (1.0 + std::exp(-x)), s0 = 1.0 / (1.0 + std::exp(x));
      const double a = phi * s1, b = phi * s0, q = phi * s1 * s0;
      const double pa = ad::math::digamma(a), pb = ad::math::digamma(b);
      const double p1a = math::trigamma(a), p1b = math::trigamma(b);
      const double g = pb - pa + ly - l1y;
      const double fu = phi * ad::math::digamma(phi) - a * pa - b * pb + a * ly + b * l1y;
      out.value += w * (lgamma_glibc(phi) - lgamma_glibc(a) - lgamma_glibc(b) + (a - 1) * ly + (b - 1) * l1y);
      out.dm += w * q * g;
      ee += w * (q * (s0 - s1) * g - q * q * (p1a + p1b));
      out.dc += w * (q * g + q * (b * p1b - a * p1a));
      out.du_mean += w * fu;
      uu += w * (fu + phi * phi * math::trigamma(phi) - a * a * p1a - b * b * p1b);
    }
  }
  out.dv = ee / 2;
  out.du_var = uu / 2;
  return out;
}

std::unique_ptr<models::Likelihood> make() {
  models::ParameterLayout layout;
  layout.add({"beta", 0, 1, true, {}});
  layout.add({"phi", 0, 1, false, {}});
  return models::make_likelihood("beta_logit", layout, {true});
}

struct Batch {
  std::vector<double> y, m, v, c;
};

// Every row of the batch against its scalar reference; returns the largest scaled difference.
double compare(const models::Likelihood& lik, const Batch& in, double u_mean, double u_var, double tol) {
  const Eigen::Index n = static_cast<Eigen::Index>(in.y.size());
  Eigen::ArrayXd value(n), dm(n), dv(n), dc(n);
  models::EtaMoments eta{in.m.data(), in.v.data(), n, u_mean, u_var, in.c.data()};
  ad::GlmRows rows;
  rows.y = in.y.data();
  rows.rows = n;
  models::RowExpectations out{value.data(), dm.data(), dv.data(), dc.data()};
  quadrature::ExpectationScratch scratch;
  lik.expected_log_lik(eta, rows, out, scratch);
  // The value is a difference of log Gammas as large as log Gamma(phi) (about 2000 at phi = 400),
  // each known to an ulp or so: its scale is theirs, not the difference's.
  const double phi = std::exp(u_mean + 3.0 * std::sqrt(u_var));
  const double value_scale = std::max(1.0, phi * std::log(phi + 1.0));
  double worst = 0.0, du_mean = 0.0, du_var = 0.0, du_scale = 1.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Sums want = scalar_reference(in.y[i], in.m[i], in.v[i], in.c[i], u_mean, u_var);
    du_mean += want.du_mean;
    du_var += want.du_var;
    du_scale += std::abs(want.du_mean) + std::abs(want.du_var);
    const double got[4] = {value[i], dm[i], dv[i], dc[i]}, ref[4] = {want.value, want.dm, want.dv, want.dc};
    const char* what[4] = {"value", "d/dmean", "d/dvar", "d/dcov"};
    for (int k = 0; k < 4; ++k) {
      if (!std::isfinite(ref[k])) {  // the scalar functions' inf or NaN, unchanged
        if (!(std::isnan(ref[k]) ? std::isnan(got[k]) : got[k] == ref[k]))
          FAIL_CHECK(what[k] << " at y=" << in.y[i] << " m=" << in.m[i] << ": " << got[k] << " against " << ref[k]);
        continue;
      }
      const double scale = k == 0 ? std::max(value_scale, std::abs(ref[k])) : std::max(1.0, std::abs(ref[k]));
      const double err = std::abs(got[k] - ref[k]) / scale;
      worst = std::max(worst, err);
      if (!(err <= tol))
        FAIL_CHECK(what[k] << " at y=" << in.y[i] << " m=" << in.m[i] << " v=" << in.v[i] << " c=" << in.c[i]
                           << " u_mean=" << u_mean << " u_var=" << u_var << ": " << got[k] << " against " << ref[k]);
    }
  }
  if (!std::isfinite(du_mean + du_var)) {
    CHECK(std::isnan(out.d_u_mean) == std::isnan(du_mean));
    CHECK(std::isnan(out.d_u_var) == std::isnan(du_var));
    return worst;
  }
  const double e_mean = std::abs(out.d_u_mean - du_mean) / du_scale, e_var = std::abs(out.d_u_var - du_var) / du_scale;
  CHECK(e_mean <= tol);
  CHECK(e_var <= tol);
  return std::max(worst, std::max(e_mean, e_var));
}

}  // namespace

TEST_CASE("beta_logit: the vectorized expectation equals the scalar lgamma_r/digamma/trigamma sums to 1e-12") {
  const auto lik = make();
  const double ys[] = {1e-6, 0.02, 0.3, 0.5, 0.77, 0.999, 1.0 - 1e-9};
  const double ms[] = {-30.0, -4.0, -0.5, 0.0, 1.3, 6.0, 25.0};
  const double vs[] = {1e-6, 0.004, 0.09, 0.8, 5.0};
  const double cors[] = {0.0, 0.6, -0.9};
  // (u_mean, u_var): near the optimum of a large dataset, moderate, wide, a large precision, and
  // an early, wide q in both axes.
  const double us[][2] = {{0.7, 1e-5}, {2.5, 0.01}, {-1.0, 0.5}, {6.0, 0.0009}, {1.0, 3.0}};
  double worst = 0.0;
  for (const auto& u : us) {
    Batch b;
    int t = 0;
    for (double y : ys)
      for (double m : ms)
        for (double v : vs) {
          const double r = cors[t++ % 3];
          b.y.push_back(y), b.m.push_back(m), b.v.push_back(v), b.c.push_back(r * std::sqrt(v * u[1]));
        }
    worst = std::max(worst, compare(*lik, b, u[0], u[1], 1e-12));
  }
  // Wide eta (256 points, chunked), and without a covariance under a wide u.
  Batch wide{{0.1, 0.5, 0.93}, {-2.0, 0.4, 3.0}, {40.0, 12.0, 7.0}, {0.0, 0.0, 0.0}};
  worst = std::max(worst, compare(*lik, wide, 1.5, 0.2, 1e-12));
  worst = std::max(worst, compare(*lik, wide, 0.5, 6.0, 1e-12));
  MESSAGE("largest scaled difference " << worst);
}

TEST_CASE("beta_logit: rows whose a or b leaves the packet domain take the scalar functions") {
  // phi near 3.3 and eta near +-349: b = phi expit(-eta) (a at -349) is near 1e-151, below the
  // packet domain, while 1/b^2 is still finite; mixed with ordinary rows in one batch.
  const auto lik = make();
  Batch b{{0.3, 0.6, 0.5, 0.2}, {349.0, -0.2, -349.0, 1.0}, {1e-4, 0.05, 1e-4, 0.5}, {0.0, 0.0, 0.0, 0.0}};
  compare(*lik, b, 1.2, 1e-4, 1e-12);
  // Further out 1/b^2 overflows and the scalar functions give inf and NaN: the same inf and NaN.
  Batch far{{0.3, 0.5, 0.2}, {400.0, -400.0, 345.0}, {0.01, 0.3, 1.0}, {0.0, 0.0, 0.0}};
  compare(*lik, far, 1.2, 0.04, 1e-12);
}

TEST_CASE("beta_logit: with u's variance 0 the rule in eta keeps eta's own variance") {
  // u_var = 0 (phi known): one node in u, and eta's conditional variance is v itself; the same as
  // a vanishing u_var.
  const auto lik = make();
  Batch b{{0.3, 0.8}, {0.5, -1.0}, {0.2, 0.6}, {0.0, 0.0}};
  compare(*lik, b, 1.0, 0.0, 1e-12);
  const Eigen::Index n = 2;
  Eigen::ArrayXd v0(n), d0(n), e0(n), c0(n), v1(n), d1(n), e1(n), c1(n);
  ad::GlmRows rows;
  rows.y = b.y.data();
  rows.rows = n;
  quadrature::ExpectationScratch scratch;
  models::EtaMoments eta0{b.m.data(), b.v.data(), n, 1.0, 0.0, b.c.data()}, eta1{b.m.data(), b.v.data(), n, 1.0, 1e-30, b.c.data()};
  models::RowExpectations out0{v0.data(), d0.data(), e0.data(), c0.data()}, out1{v1.data(), d1.data(), e1.data(), c1.data()};
  lik->expected_log_lik(eta0, rows, out0, scratch);
  lik->expected_log_lik(eta1, rows, out1, scratch);
  for (Eigen::Index i = 0; i < n; ++i) {
    CHECK(v0[i] == doctest::Approx(v1[i]).epsilon(1e-12));
    CHECK(d0[i] == doctest::Approx(d1[i]).epsilon(1e-12));
    CHECK(e0[i] == doctest::Approx(e1[i]).epsilon(1e-12));
  }
}

}  // namespace test_beta_logit_vectorized
