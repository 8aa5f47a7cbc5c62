// The exact expected log joint (data part and prior part) for every likelihood and every way a
// prior term is taken (closed form, quadrature, hierarchical closed form, sample average), both
// families: the gradient in q's mean and covariance against central differences of the value,
// the value against a Monte Carlo average of the AD log joint (an independent implementation of
// the same density), the meanfield Hessian-vector product against differences of the gradient,
// and the same bits for any thread count.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "exact_fixtures.hpp"
#include "inference/rng/normal_stream.hpp"
#include "support/sanitized.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_expected_log_joint {

using namespace bvi;
using test::PriorKind;

namespace {

const char* kLikelihoods[] = {"bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log",
                              "normal",          "negative_binomial_log", "lognormal", "gamma_log", "beta_logit"};
const PriorKind kKinds[] = {PriorKind::closed, PriorKind::quadrature, PriorKind::hierarchical,
                            PriorKind::sampled};

const char* kind_name(PriorKind k) {
  switch (k) {
    case PriorKind::closed:
      return "closed";
    case PriorKind::quadrature:
      return "quadrature";
    case PriorKind::hierarchical:
      return "hierarchical";
    case PriorKind::sampled:
      return "sampled";
  }
  return "";
}

double value(test::ExactFixture& f, const vi::GaussianQ& q) {
  return f.expected->evaluate(q, nullptr);
}

void check_derivative(double fd, double analytic, double scale) {
  CHECK(std::abs(fd - analytic) <= 2e-6 * (std::abs(analytic) + scale));
}

}  // namespace

TEST_CASE("the exact expected log joint's gradient matches central differences") {
  for (const char* lik : kLikelihoods)
    for (PriorKind kind : kKinds)
      for (bool dense : {false, true}) {
        INFO(lik << " " << kind_name(kind) << (dense ? " fullrank" : " meanfield"));
        test::ExactFixture f(lik, kind, 200, 3);
        const Eigen::Index P = f.model.dim();
        vi::GaussianQ q = test::random_q(P, dense, 3);
        vi::ExpectationGradient g;
        const double e = f.expected->evaluate(q, &g);
        CHECK(std::isfinite(e));
        CHECK(g.value == doctest::Approx(e).epsilon(1e-14));
        const double scale = 1e-3 * std::max(1.0, std::abs(e));
        const double h = 1e-5;
        for (Eigen::Index j = 0; j < P; ++j) {
          vi::GaussianQ a = q, b = q;
          a.mean[j] += h;
          b.mean[j] -= h;
          INFO("d/dmean " << j);
          check_derivative((value(f, a) - value(f, b)) / (2 * h), g.d_mean[j], scale);
        }
        if (!dense) {
          for (Eigen::Index j = 0; j < P; ++j) {
            vi::GaussianQ a = q, b = q;
            const double v = q.sd[j] * q.sd[j], dv = h * v;
            a.sd[j] = std::sqrt(v + dv);
            b.sd[j] = std::sqrt(v - dv);
            INFO("d/dvar " << j);
            check_derivative((value(f, a) - value(f, b)) / (2 * dv), g.d_var[j], scale / v);
          }
        } else {
          // dE/dL = 2 G L for Sigma = L L'.
          const Eigen::MatrixXd dL = 2.0 * g.d_cov * q.chol;
          CHECK((g.d_cov - g.d_cov.transpose()).cwiseAbs().maxCoeff() <=
                1e-12 * (1 + g.d_cov.cwiseAbs().maxCoeff()));
          for (Eigen::Index i = 0; i < P; ++i)
            for (Eigen::Index k = 0; k <= i; ++k) {
              vi::GaussianQ a = q, b = q;
              a.chol(i, k) += h;
              b.chol(i, k) -= h;
              INFO("d/dL(" << i << ", " << k << ")");
              check_derivative((value(f, a) - value(f, b)) / (2 * h), dL(i, k), scale);
            }
        }
      }
}

TEST_CASE("the exact expected log joint equals a Monte Carlo average of the AD log joint") {
  for (const char* lik : kLikelihoods)
    for (PriorKind kind : kKinds)
      for (bool dense : {false, true}) {
        INFO(lik << " " << kind_name(kind) << (dense ? " fullrank" : " meanfield"));
        test::ExactFixture f(lik, kind, 150, 3);
        const Eigen::Index P = f.model.dim();
        const vi::GaussianQ q = test::random_q(P, dense, 9, 0.3);
        const double e = value(f, q);
        const Eigen::Index S = test::monte_carlo_draws(40000);
        Eigen::MatrixXd eps(S, P), zeta(S, P);
        rng::standard_normal(77, rng::Purpose::elbo, 1, 0, eps);
        if (dense)
          zeta = (eps * q.chol.transpose()).rowwise() + q.mean.transpose();
        else
          zeta = (eps.array().rowwise() * q.sd.transpose().array()).matrix().rowwise() + q.mean.transpose();
        models::LogJoint<double> lj(f.model, f.view(), *f.reducer);
        Eigen::VectorXd lp(S);
        lj.evaluate(zeta, lp, nullptr, models::Scale::unconstrained);
        const double mc = lp.mean();
        const double se = std::sqrt((lp.array() - mc).square().sum() / double(S - 1) / double(S));
        const double saa = f.expected->value_se();
        INFO("exact " << e << " Monte Carlo " << mc << " +- " << se << " (sample-average terms +- " << saa
                      << ")");
        CHECK(std::abs(e - mc) <= 4.5 * std::sqrt(se * se + saa * saa));
        if (kind != PriorKind::sampled) CHECK(saa == 0.0);
      }
}

TEST_CASE("meanfield's Hessian-vector product is the derivative of the mean gradient") {
  for (const char* lik : kLikelihoods)
    for (PriorKind kind : {PriorKind::closed, PriorKind::quadrature, PriorKind::hierarchical}) {
      INFO(lik << " " << kind_name(kind));
      test::ExactFixture f(lik, kind, 200, 3);
      const Eigen::Index P = f.model.dim();
      const vi::GaussianQ q = test::random_q(P, false, 4);
      Eigen::VectorXd d(P);
      for (Eigen::Index j = 0; j < P; ++j) d[j] = std::sin(1.0 + j);
      vi::ExpectationGradient g, ga, gb;
      f.expected->evaluate(q, &g);
      Eigen::VectorXd hd;
      f.expected->hessian_times(d, hd);
      const double h = 1e-5;
      vi::GaussianQ a = q, b = q;
      a.mean += h * d;
      b.mean -= h * d;
      f.expected->evaluate(a, &ga);
      f.expected->evaluate(b, &gb);
      const Eigen::VectorXd fd = (ga.d_mean - gb.d_mean) / (2 * h);
      for (Eigen::Index j = 0; j < P; ++j) {
        INFO("component " << j);
        check_derivative(fd[j], hd[j], 1e-3 * (1.0 + fd.cwiseAbs().maxCoeff()));
      }
    }
}

TEST_CASE("the exact expected log joint has the same bits for 1, 2 and 3 threads") {
  for (const char* lik : {"bernoulli_logit", "normal", "poisson_log", "negative_binomial_log", "gamma_log"})
    for (bool dense : {false, true}) {
      INFO("likelihood " << std::string(lik) << (dense ? " fullrank" : " meanfield"));
      test::ExactFixture one(lik, PriorKind::hierarchical, 5000, 6, 1, 64);
      const vi::GaussianQ q = test::random_q(one.model.dim(), dense, 8);
      vi::ExpectationGradient g1, g;
      const double e1 = one.expected->evaluate(q, &g1);
      for (int threads : {2, 3}) {
        test::ExactFixture many(lik, PriorKind::hierarchical, 5000, 6, threads, 64);
        const double e = many.expected->evaluate(q, &g);
        CHECK(e == e1);
        CHECK(g.d_mean == g1.d_mean);
        if (dense)
          CHECK(g.d_cov == g1.d_cov);
        else
          CHECK(g.d_var == g1.d_var);
      }
    }
}

}  // namespace test_expected_log_joint
