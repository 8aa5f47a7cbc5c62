// A factor's two correlated effects (a varying intercept and slope under their sds and an LKJ
// correlation), whose prior term the exact method takes in closed form (Gaussian tilts) and by
// one Gauss–Hermite integral: the expected log joint against a Monte Carlo average of the AD log
// joint, its gradient against central differences for meanfield and fullrank, the sparse family
// equal to fullrank at the same q, nothing left to a sample average, and the sparse optimum equal
// to fullrank's.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "multilevel_setup.hpp"
#include "sparse_q.hpp"
#include "support/sanitized.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_correlated_pair {

using namespace bvi;
using Eigen::Index;
using test::Setup;

namespace {

const char* const kSome[] = {"bernoulli_logit", "poisson_log", "normal"};

Setup two_effects(const char* lik, Index n = 240) { return Setup(lik, true, true, n, 1, 1); }

void check_derivative(double fd, double analytic, double scale) {
  CHECK(std::abs(fd - analytic) <= 2e-6 * (std::abs(analytic) + scale));
}

}  // namespace

TEST_CASE("two correlated effects: the prior term is exact, and the value is the AD log joint's average") {
  for (const char* lik : kSome)
    for (bool dense : {false, true}) {
      INFO(lik << (dense ? " fullrank" : " meanfield"));
      Setup s = two_effects(lik, 150);
      CHECK(s.expected->prior().exact());
      const Index P = s.model.dim();
      const vi::GaussianQ q = test::random_q(P, dense, 23, 0.25);
      const double e = s.expected->evaluate(q, nullptr);
      CHECK(s.expected->value_se() == 0.0);
      const test::MonteCarloMean draws = test::monte_carlo_log_joint(s, q, test::monte_carlo_draws(60000), 79);
      const double mc = draws.mean, se = draws.se;
      INFO("exact " << e << ", Monte Carlo " << mc << " +- " << se);
      CHECK(std::abs(e - mc) <= 4.5 * se);
    }
}

TEST_CASE("two correlated effects: gradient against central differences") {
  for (const char* lik : kSome)
    for (bool dense : {false, true}) {
      INFO(lik << (dense ? " fullrank" : " meanfield"));
      Setup s = two_effects(lik);
      const Index P = s.model.dim();
      const vi::GaussianQ q = test::random_q(P, dense, 21, 0.15);
      vi::ExpectationGradient g;
      const double e = s.expected->evaluate(q, &g);
      REQUIRE(std::isfinite(e));
      const double scale = 1e-3 * std::max(1.0, std::abs(e)), h = 1e-5;
      auto value = [&](const vi::GaussianQ& x) { return s.expected->evaluate(x, nullptr); };
      for (Index j = 0; j < P; ++j) {
        vi::GaussianQ a = q, b = q;
        a.mean[j] += h;
        b.mean[j] -= h;
        INFO("d/dmean " << j);
        check_derivative((value(a) - value(b)) / (2 * h), g.d_mean[j], scale);
      }
      if (!dense) {
        for (Index j = 0; j < P; ++j) {
          vi::GaussianQ a = q, b = q;
          const double v = q.sd[j] * q.sd[j], dv = h * v;
          a.sd[j] = std::sqrt(v + dv);
          b.sd[j] = std::sqrt(v - dv);
          INFO("d/dvar " << j);
          check_derivative((value(a) - value(b)) / (2 * dv), g.d_var[j], scale / v);
        }
      } else {
        const Eigen::MatrixXd dL = 2.0 * g.d_cov * q.chol;
        for (Index i = 0; i < P; ++i)
          for (Index k = 0; k <= i; ++k) {
            vi::GaussianQ a = q, b = q;
            a.chol(i, k) += h;
            b.chol(i, k) -= h;
            INFO("d/dL(" << i << ", " << k << ")");
            check_derivative((value(a) - value(b)) / (2 * h), dL(i, k), scale);
          }
      }
    }
}

TEST_CASE("two correlated effects: the sparse family's value and gradient are fullrank's at the same q") {
  for (const char* lik : kSome) {
    INFO(lik);
    Setup s = two_effects(lik);
    const auto pat = test::pattern_of(s);
    const Index P = s.model.dim();
    vi::GaussianQ qs, qd;
    test::both_q(pat, test::random_precision(*pat, 37, 0.2), Eigen::VectorXd::LinSpaced(P, -0.4, 0.4), qs, qd);
    vi::ExpectationGradient gs, gd;
    const double es = s.expected->evaluate(qs, &gs), ed = s.expected->evaluate(qd, &gd);
    CHECK(es == doctest::Approx(ed).epsilon(1e-11));
    CHECK((gs.d_mean - gd.d_mean).cwiseAbs().maxCoeff() <= 1e-10 * gd.d_mean.cwiseAbs().maxCoeff());
    test::check_sparse_cov_gradient(*pat, gs, gd);
  }
}

TEST_CASE("two correlated effects: the sparse optimum is fullrank's") {
  for (const char* lik : {"bernoulli_logit", "normal"}) {
    INFO(lik);
    Setup s = two_effects(lik);
    const test::DenseAndSparse fits = test::fit_dense_and_sparse(s);
    const vi::ExactResult &dense = fits.dense, &sparse = fits.sparse;
    REQUIRE(dense.run.converged);
    REQUIRE(sparse.run.converged);
    const Eigen::VectorXd sd = dense.run.q->marginal_sd();
    CHECK(((sparse.run.q->mean() - dense.run.q->mean()).cwiseQuotient(sd)).cwiseAbs().maxCoeff() <= 1e-6);
    CHECK(((sparse.run.q->marginal_sd() - sd).cwiseQuotient(sd)).cwiseAbs().maxCoeff() <= 1e-6);
  }
}

}  // namespace test_correlated_pair
