// The exact expected log joint of multilevel models (support/multilevel_fixture.hpp: a factor
// with correlated intercept and two slopes under LKJ(2), and a factor of varying intercepts),
// every likelihood and both families: the gradient against central differences of the value
// (the correlated factor's prior exact: Gaussian tilts, models/correlated_tilt.hpp), the value
// against a Monte Carlo average of the AD log joint, meanfield's Hessian-vector product against
// differences of the gradient where every term is exact, the centred intercept prior, and the
// same bits for 1, 2 and 3 threads and for chunks that lost rows. The structured family (each
// group effect tied to its sd): its gradient, its value against Monte Carlo through the family's
// own draws, and the optimizer's end point stationary in every one of its parameters.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "common/logger.hpp"
#include "exact_fixtures.hpp"
#include "inference/exact/exact_vi.hpp"
#include "inference/families/structured.hpp"
#include "multilevel_setup.hpp"
#include "support/multilevel_fixture.hpp"
#include "support/sanitized.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_expected_multilevel {

using namespace bvi;
using test::kLikelihoods;
using test::Setup;

namespace {

void check_derivative(double fd, double analytic, double scale) {
  CHECK(std::abs(fd - analytic) <= 2e-6 * (std::abs(analytic) + scale));
}

}  // namespace

TEST_CASE("multilevel exact expected log joint: gradient against central differences") {
  for (const char* lik : kLikelihoods)
    for (bool correlated : {false, true})
      for (bool dense : {false, true}) {
        INFO(lik << (correlated ? " correlated" : " independent") << (dense ? " fullrank" : " meanfield"));
        Setup s(lik, correlated, true);
        const Eigen::Index P = s.model.dim();
        const vi::GaussianQ q = test::random_q(P, dense, 21, 0.12);
        vi::ExpectationGradient g;
        const double e = s.expected->evaluate(q, &g);
        REQUIRE(std::isfinite(e));
        const double scale = 1e-3 * std::max(1.0, std::abs(e)), h = 1e-5;
        auto value = [&](const vi::GaussianQ& x) { return s.expected->evaluate(x, nullptr); };
        for (Eigen::Index j = 0; j < P; ++j) {
          if (!test::fd_entry(j, P)) continue;
          vi::GaussianQ a = q, b = q;
          a.mean[j] += h;
          b.mean[j] -= h;
          INFO("d/dmean " << j);
          check_derivative((value(a) - value(b)) / (2 * h), g.d_mean[j], scale);
        }
        if (!dense) {
          for (Eigen::Index j = 0; j < P; ++j) {
            if (!test::fd_entry(j, P)) continue;
            vi::GaussianQ a = q, b = q;
            const double v = q.sd[j] * q.sd[j], dv = h * v;
            a.sd[j] = std::sqrt(v + dv);
            b.sd[j] = std::sqrt(v - dv);
            INFO("d/dvar " << j);
            check_derivative((value(a) - value(b)) / (2 * dv), g.d_var[j], scale / v);
          }
        } else {
          const Eigen::MatrixXd dL = 2.0 * g.d_cov * q.chol;
          Eigen::Index pairs = 0;  // the (i, k) below
          for (Eigen::Index i = 0; i < P; i += 3) pairs += i / 2 + 1;
          Eigen::Index pair = 0;
          for (Eigen::Index i = 0; i < P; i += 3)
            for (Eigen::Index k = 0; k <= i; k += 2) {
              if (!test::fd_entry(pair++, pairs)) continue;
              vi::GaussianQ a = q, b = q;
              a.chol(i, k) += h;
              b.chol(i, k) -= h;
              INFO("d/dL(" << i << ", " << k << ")");
              check_derivative((value(a) - value(b)) / (2 * h), dL(i, k), scale);
            }
        }
      }
}

TEST_CASE("multilevel exact expected log joint equals a Monte Carlo average of the AD log joint") {
  for (const char* lik : kLikelihoods)
    for (bool correlated : {false, true})
      for (bool dense : {false, true}) {
        INFO(lik << (correlated ? " correlated" : " independent") << (dense ? " fullrank" : " meanfield"));
        Setup s(lik, correlated, true, 150);
        const Eigen::Index P = s.model.dim();
        const vi::GaussianQ q = test::random_q(P, dense, 23, 0.2);
        const double e = s.expected->evaluate(q, nullptr);
        const test::MonteCarloMean draws = test::monte_carlo_log_joint(s, q, test::monte_carlo_draws(40000), 77);
        const double mc = draws.mean, se = draws.se;
        const double saa = s.expected->value_se();
        INFO("exact " << e << ", Monte Carlo " << mc << " +- " << se << ", sample-average terms +- " << saa);
        CHECK(std::abs(e - mc) <= 4.5 * std::sqrt(se * se + saa * saa));
        if (!correlated) CHECK(saa == 0.0);
      }
}

TEST_CASE("multilevel meanfield Hessian-vector product where every term is exact") {
  for (const char* lik : kLikelihoods)
    for (bool centred : {false, true}) {
      INFO(lik << (centred ? " centred intercept prior" : ""));
      Setup s(lik, false, centred);
      const Eigen::Index P = s.model.dim();
      const vi::GaussianQ q = test::random_q(P, false, 25, 0.12);
      Eigen::VectorXd d(P);
      for (Eigen::Index j = 0; j < P; ++j) d[j] = std::cos(0.7 * j + 1.0);
      vi::ExpectationGradient g, ga, gb;
      s.expected->evaluate(q, &g);
      Eigen::VectorXd hd;
      s.expected->hessian_times(d, hd);
      const double h = 1e-5;
      vi::GaussianQ a = q, b = q;
      a.mean += h * d;
      b.mean -= h * d;
      s.expected->evaluate(a, &ga);
      s.expected->evaluate(b, &gb);
      const Eigen::VectorXd fd = (ga.d_mean - gb.d_mean) / (2 * h);
      for (Eigen::Index j = 0; j < P; ++j) {
        INFO("component " << j);
        check_derivative(fd[j], hd[j], 1e-3 * (1.0 + fd.cwiseAbs().maxCoeff()));
      }
    }
}

TEST_CASE("multilevel exact expected log joint: same bits for 1, 2, 3 threads") {
  for (bool dense : {false, true}) {
    Setup one("bernoulli_logit", true, true, 3000, 1);
    const vi::GaussianQ q = test::random_q(one.model.dim(), dense, 27, 0.1);
    vi::ExpectationGradient g1, g;
    const double e1 = one.expected->evaluate(q, &g1);
    for (int threads : {2, 3}) {
      Setup many("bernoulli_logit", true, true, 3000, threads);
      CHECK(many.expected->evaluate(q, &g) == e1);
      CHECK(g.d_mean == g1.d_mean);
      if (dense)
        CHECK(g.d_cov == g1.d_cov);
      else
        CHECK(g.d_var == g1.d_var);
    }
  }
}

namespace {

// A structured q on `s`'s model: random meanfield scales, every group effect tied to its sd.
vi::GaussianQ structured_q(const Setup& s, const std::vector<Eigen::Index>& parent, unsigned seed) {
  vi::GaussianQ q = test::random_q(s.model.dim(), false, seed, 0.2);
  std::mt19937_64 rng(seed + 1);
  std::normal_distribution<double> normal;
  q.b = Eigen::VectorXd::Zero(q.dim());
  for (Eigen::Index j = 0; j < q.dim(); ++j)
    if (parent[static_cast<std::size_t>(j)] >= 0) q.b[j] = 0.8 * normal(rng);
  q.parent = &parent;
  return q;
}

}  // namespace

TEST_CASE("structured q: the parents are the group effects' sds") {
  Setup s("bernoulli_logit", false, true);
  const std::vector<Eigen::Index> parent = s.expected->parents();
  REQUIRE(static_cast<Eigen::Index>(parent.size()) == s.model.dim());
  Eigen::Index children = 0;
  for (const models::GroupPrior& g : s.model.group_priors())
    for (Eigen::Index j = 0; j < g.groups * g.effects; ++j, ++children)
      CHECK(parent[static_cast<std::size_t>(g.r_offset + j)] == g.sd_offset + j % g.effects);
  CHECK(std::count_if(parent.begin(), parent.end(), [](Eigen::Index p) { return p >= 0; }) == children);
  // A correlated factor's effects keep no parent (their prior is no hierarchical normal).
  Setup c("bernoulli_logit", true, true);
  const models::GroupPrior& a = c.model.group_priors()[0];
  REQUIRE(a.L_offset >= 0);
  CHECK(c.expected->parents()[static_cast<std::size_t>(a.r_offset)] == -1);
}

TEST_CASE("structured q: gradient in the mean, the sds and the ties against central differences") {
  for (const char* lik : kLikelihoods) {
    INFO(lik);
    Setup s(lik, false, true);
    const std::vector<Eigen::Index> parent = s.expected->parents();
    const vi::GaussianQ q = structured_q(s, parent, 31);
    const Eigen::Index P = q.dim();
    vi::ExpectationGradient g;
    const double e = s.expected->evaluate(q, &g);
    REQUIRE(std::isfinite(e));
    REQUIRE(g.d_parent.size() == P);
    const double scale = 1e-3 * std::max(1.0, std::abs(e)), h = 1e-5;
    auto value = [&](const vi::GaussianQ& x) { return s.expected->evaluate(x, nullptr); };
    // Sigma_jj = sd_j^2 + b_j^2 sd_p^2 and Sigma_jp = b_j sd_p^2 (both ordered pairs), so
    // dE/db_j = 2 sd_p^2 (b_j G_jj + G_jp), dE/dsd_j = 2 sd_j G_jj and, for a parent,
    // dE/dsd_p = 2 sd_p (G_pp + sum over its children of b_j^2 G_jj + 2 b_j G_jp).
    Eigen::VectorXd d_sd = 2.0 * (q.sd.array() * g.d_var.array()).matrix();
    for (Eigen::Index j = 0; j < P; ++j) {
      const Eigen::Index p = parent[static_cast<std::size_t>(j)];
      if (p >= 0) d_sd[p] += 2.0 * q.sd[p] * (q.b[j] * q.b[j] * g.d_var[j] + 2.0 * q.b[j] * g.d_parent[j]);
    }
    for (Eigen::Index j = 0; j < P; ++j) {
      vi::GaussianQ a = q, b = q;
      a.mean[j] += h;
      b.mean[j] -= h;
      INFO("d/dmean " << j);
      check_derivative((value(a) - value(b)) / (2 * h), g.d_mean[j], scale);
      a = q;
      b = q;
      a.sd[j] += h;
      b.sd[j] -= h;
      INFO("d/dsd " << j);
      check_derivative((value(a) - value(b)) / (2 * h), d_sd[j], scale);
      const Eigen::Index p = parent[static_cast<std::size_t>(j)];
      if (p < 0) continue;
      a = q;
      b = q;
      a.b[j] += h;
      b.b[j] -= h;
      INFO("d/db " << j);
      check_derivative((value(a) - value(b)) / (2 * h),
                       2.0 * q.sd[p] * q.sd[p] * (q.b[j] * g.d_var[j] + g.d_parent[j]), scale);
    }
  }
}

TEST_CASE("structured q: the expected log joint equals a Monte Carlo average of the AD log joint") {
  for (const char* lik : kLikelihoods) {
    INFO(lik);
    Setup s(lik, false, true, 150);
    const std::vector<Eigen::Index> parent = s.expected->parents();
    const vi::GaussianQ q = structured_q(s, parent, 33);
    const Eigen::Index P = q.dim();
    const double e = s.expected->evaluate(q, nullptr);
    // Draws through the family's own transform.
    vi::Structured family(P, parent);
    family.params() << q.mean, q.sd.array().log().matrix(), q.b;
    const test::MonteCarloMean draws = test::monte_carlo_log_joint(
        s, test::monte_carlo_draws(40000), 79, [&family](const Eigen::MatrixXd& eps, Eigen::MatrixXd& zeta) { family.transform(eps, zeta); });
    const double mc = draws.mean, se = draws.se;
    INFO("exact " << e << ", Monte Carlo " << mc << " +- " << se);
    CHECK(std::abs(e - mc) <= 4.5 * se);
    // The family's marginal sds and covariance are those q's accessors give.
    const Eigen::MatrixXd C = family.covariance();
    const Eigen::VectorXd sd = family.marginal_sd();
    for (Eigen::Index i = 0; i < P; ++i) {
      CHECK(std::abs(sd[i] - std::sqrt(q.var(i))) <= 1e-14 * sd[i]);
      for (Eigen::Index k = 0; k < P; ++k) CHECK(std::abs(C(i, k) - q.cov(i, k)) <= 1e-14 * (1.0 + std::abs(C(i, k))));
    }
  }
}

TEST_CASE("structured family: the exact optimizer stops where the ELBO is stationary in every parameter") {
  for (const char* lik : {"bernoulli_logit", "normal"}) {
    INFO(lik);
    Setup s(lik, false, true);
    const Eigen::Index P = s.model.dim();
    vi::ExactOptions o;
    o.structured = true;
    o.max_iterations = 500;
    o.tol_grad = 1e-9;
    NullLogger log;
    const vi::ExactResult r = vi::run_exact(*s.expected, s.expected->initial_mean(), o, log, nullptr, {});
    REQUIRE(r.run.converged);
    const auto& family = dynamic_cast<const vi::Structured&>(*r.run.q);
    vi::GaussianQ q;
    q.mean = family.mean();
    q.sd = family.conditional_sd();
    q.b = family.b();
    q.parent = &family.parent();
    auto elbo = [&](const vi::GaussianQ& x) { return s.expected->evaluate(x, nullptr) + x.entropy(); };
    const double h = 1e-5, base = elbo(q);
    CHECK(std::abs(base - r.elbo) <= 1e-9 * std::abs(base));
    double worst = 0.0;
    for (Eigen::Index j = 0; j < P; ++j) {
      // In each parameter's own units: the mean in sds, log sd, b in sd_j / sd_p.
      const Eigen::Index p = q.parent_of(j);
      for (int which = 0; which < 3; ++which) {
        if (which == 2 && p < 0) continue;
        vi::GaussianQ a = q, b = q;
        const double step = which == 0 ? h * std::sqrt(q.var(j)) : which == 1 ? h : h * q.sd[j] / q.sd[p];
        double* pa = which == 0 ? &a.mean[j] : which == 1 ? &a.sd[j] : &a.b[j];
        double* pb = which == 0 ? &b.mean[j] : which == 1 ? &b.sd[j] : &b.b[j];
        if (which == 1) {
          *pa *= std::exp(h);
          *pb *= std::exp(-h);
        } else {
          *pa += step;
          *pb -= step;
        }
        worst = std::max(worst, std::abs(elbo(a) - elbo(b)) / (2 * h));
      }
    }
    INFO("largest derivative of the ELBO in natural units " << worst);
    CHECK(worst < 1e-5);
  }
}

}  // namespace test_expected_multilevel
