// The families' reparameterized ELBO gradient against central differences of the same Monte
// Carlo ELBO with the draws held fixed, their entropy and log density against closed forms.
#include <doctest/doctest.h>

#include <cmath>

#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"
#include "inference/rng/normal_stream.hpp"
#include "support/gaussian_target.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_families {

using namespace bvi;

namespace {

// The ELBO estimate with fixed eps, written from the definition: mean log p(mu + C eps) + H.
double fixed_draw_elbo(vi::Family& q, test::GaussianTarget& target, const Eigen::MatrixXd& eps) {
  Eigen::MatrixXd zeta(eps.rows(), eps.cols());
  q.transform(eps, zeta);
  Eigen::VectorXd lp(eps.rows());
  target.log_density(zeta, lp, nullptr);
  return lp.mean() + q.entropy();
}

void check_gradient(vi::Family& q, test::GaussianTarget& target) {
  const int S = 7;
  Eigen::MatrixXd eps(S, q.dim());
  rng::standard_normal(3, rng::Purpose::gradient, 1, 0, eps);
  Eigen::MatrixXd zeta(S, q.dim()), g;
  q.transform(eps, zeta);
  Eigen::VectorXd lp(S), grad;
  target.log_density(zeta, lp, &g);
  q.elbo_gradient(eps, g, grad);
  REQUIRE(grad.size() == q.params().size());
  for (Eigen::Index k = 0; k < q.params().size(); ++k) {
    const double x0 = q.params()[k], h = 1e-6;
    q.params()[k] = x0 + h;
    const double up = fixed_draw_elbo(q, target, eps);
    q.params()[k] = x0 - h;
    const double down = fixed_draw_elbo(q, target, eps);
    q.params()[k] = x0;
    const double fd = (up - down) / (2 * h);
    CHECK_MESSAGE(std::abs(grad[k] - fd) <= 1e-6 * std::max(1.0, std::abs(fd)),
                  "param " << k << ": " << grad[k] << " vs " << fd);
  }
}

}  // namespace

TEST_CASE("meanfield ELBO gradient matches central differences") {
  test::GaussianTarget target(Eigen::VectorXd::LinSpaced(4, -1, 2), test::test_precision(4));
  vi::MeanField q(4);
  q.params() << 0.3, -0.2, 0.5, 1.0, -0.4, 0.1, 0.2, -0.3;
  check_gradient(q, target);
}

TEST_CASE("fullrank ELBO gradient matches central differences") {
  test::GaussianTarget target(Eigen::VectorXd::LinSpaced(3, -1, 2), test::test_precision(3));
  vi::FullRank q(3);
  Eigen::MatrixXd L(3, 3);
  L << 0.8, 0, 0, 0.3, 1.2, 0, -0.5, 0.2, 0.6;
  q.set_cholesky(L);
  q.params().head(3) << 0.1, 0.2, -0.3;
  check_gradient(q, target);
  CHECK((q.cholesky() - L).norm() < 1e-14);
  CHECK((q.covariance() - L * L.transpose()).norm() < 1e-14);
  CHECK((q.marginal_sd() - (L * L.transpose()).diagonal().cwiseSqrt()).norm() < 1e-14);
}

TEST_CASE("entropy and log density carry every constant") {
  // H[N(mu, diag(s^2))] = sum log s + P/2 (1 + log 2 pi)
  vi::MeanField q(2);
  q.params() << 0.0, 0.0, std::log(0.5), std::log(2.0);
  CHECK(q.entropy() ==
        doctest::Approx(std::log(0.5) + std::log(2.0) + (1 + std::log(2 * M_PI))).epsilon(1e-15));
  // log q at zeta = mu + C eps equals the multivariate normal log density at zeta.
  vi::FullRank f(2);
  Eigen::MatrixXd L(2, 2);
  L << 1.5, 0, 0.4, 0.7;
  f.set_cholesky(L);
  f.params().head(2) << 1.0, -1.0;
  Eigen::MatrixXd eps(1, 2), zeta(1, 2);
  eps << 0.3, -1.1;
  f.transform(eps, zeta);
  Eigen::VectorXd lq(1);
  f.log_density_of_draws(eps, lq);
  const Eigen::MatrixXd cov = L * L.transpose();
  const Eigen::VectorXd d = zeta.row(0).transpose() - Eigen::Vector2d(1.0, -1.0);
  const double ref = -std::log(2 * M_PI) - 0.5 * std::log(cov.determinant()) - 0.5 * d.dot(cov.inverse() * d);
  CHECK(lq[0] == doctest::Approx(ref).epsilon(1e-13));
}

}  // namespace test_families
