// beta_logit's expectation at the small sds of a large dataset's q (its own tiers below sd 0.15:
// 2 to 8 points per axis) against an independent 40 x 60 Gauss-Hermite rule of
// the log density written out here with std::lgamma (u first, then eta given u: the factorization
// the code uses is irrelevant at c = 0 and the other one is taken under correlation), its partials
// by central differences of that rule; phi from 1 to 1000, sds on both sides of each tier's edge.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "inference/quadrature/gauss_hermite.hpp"
#include "models/likelihoods/likelihood.hpp"

namespace test_beta_logit_small_sd {

using namespace bvi;

namespace {

struct Moments {
  double m, v, c, u_mean, u_var;
};

// E log Beta(y | phi expit(eta), phi expit(-eta)) over (eta, u) bivariate normal: eta first, then
// u given eta.
double reference(double y, const Moments& q) {
  const auto& re = quadrature::gauss_hermite(60);
  const auto& ru = quadrature::gauss_hermite(40);
  const double sv = std::sqrt(q.v), b = q.v > 0.0 ? q.c / q.v : 0.0;
  const double cond = std::sqrt(std::max(0.0, q.u_var - b * q.c));
  double total = 0.0;
  for (int i = 0; i < re.size(); ++i) {
    const double eta = q.m + sv * re.nodes[i];
    const double mu = 1.0 / (1.0 + std::exp(-eta)), nu = 1.0 / (1.0 + std::exp(eta));
    for (int k = 0; k < ru.size(); ++k) {
      const double phi = std::exp(q.u_mean + b * sv * re.nodes[i] + cond * ru.nodes[k]);
      const double a = phi * mu, bb = phi * nu;
      const double f = std::lgamma(phi) - std::lgamma(a) - std::lgamma(bb) + (a - 1.0) * std::log(y) +
                       (bb - 1.0) * std::log1p(-y);
      total += re.weights[i] * ru.weights[k] * f;
    }
  }
  return total;
}

struct Got {
  double value, dm, dv, dc, du_mean, du_var;
};

Got evaluate(const models::Likelihood& lik, double y, const Moments& q) {
  double value, dm, dv, dc;
  // Without a covariance as meanfield passes it (no cov_u: the u axis's own tiers), with one as
  // fullrank does (the u axis's one-up tiers).
  models::EtaMoments eta{&q.m, &q.v, 1, q.u_mean, q.u_var, q.c == 0.0 ? nullptr : &q.c};
  ad::GlmRows rows;
  rows.y = &y;
  rows.rows = 1;
  models::RowExpectations out{&value, &dm, &dv, &dc};
  quadrature::ExpectationScratch scratch;
  lik.expected_log_lik(eta, rows, out, scratch);
  return {value, dm, dv, dc, out.d_u_mean, out.d_u_var};
}

}  // namespace

TEST_CASE("beta_logit: at small sds (its own tiers) E log p and its partials match a 40 x 60 rule") {
  models::ParameterLayout layout;
  layout.add({"beta", 0, 1, true, {}});
  layout.add({"phi", 0, 1, false, {}});
  const auto lik = models::make_likelihood("beta_logit", layout, {true});
  for (double phi : {1.0, 12.0, 150.0, 1000.0})
    for (double s : {0.0009, 0.0011, 0.004, 0.0099, 0.0101, 0.03, 0.06})
      for (double sd : {0.0004, 0.0006, 0.0049, 0.0051, 0.009, 0.049, 0.051, 0.1, 0.149})
        for (double y : {0.03, 0.55, 0.97}) {
          const double m = y < 0.5 ? -2.0 : (y > 0.9 ? 1.5 : 0.3);
          const Moments q{m, sd * sd, s == 0.03 ? 0.2 * s * sd : 0.0, std::log(phi), s * s};
          INFO("phi=" << phi << " s=" << s << " sd=" << sd << " y=" << y << " c=" << q.c);
          const Got got = evaluate(*lik, y, q);
          const double want = reference(y, q);
          CHECK(std::abs(got.value - want) <= 1e-11 * std::max(1.0, std::abs(want)));
          auto diff = [&](double Moments::*field, double h) {
            Moments lo = q, hi = q;
            lo.*field -= h;
            hi.*field += h;
            return (reference(y, hi) - reference(y, lo)) / (2.0 * h);
          };
          auto close = [](double a, double b) { return std::abs(a - b) <= 1e-5 * std::max(1.0, std::abs(b)); };
          CHECK(close(got.dm, diff(&Moments::m, 1e-4)));
          CHECK(close(got.du_mean, diff(&Moments::u_mean, 1e-4)));
          CHECK(close(got.dv, diff(&Moments::v, 0.2 * q.v)));
          CHECK(close(got.du_var, diff(&Moments::u_var, 0.2 * q.u_var)));
        }
}

}  // namespace test_beta_logit_small_sd
