// The fullrank Monte Carlo natural step (natural_gradient.hpp) on gradient draws made linear in eps,
// g_s = B eps_s, so that its regression recovers B exactly: a step of rho = 1 puts q's precision on
// -sym(B L^-1) whatever the parameters' scales. B L^-1 of a non-Gaussian target is not symmetric,
// and on a raw-scale design (a column near 30 beside the intercept) its antisymmetric part is
// large in the flat directions: it must not leak into the precision.
#include <doctest/doctest.h>

#include <Eigen/Cholesky>
#include <random>

#include "inference/families/fullrank.hpp"
#include "inference/math/symmetrize.hpp"
#include "inference/optimizers/natural_gradient.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_natural_gradient {

using namespace bvi;
using Eigen::Index;

namespace {

Eigen::MatrixXd normal_matrix(Index rows, Index cols, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> n01;
  Eigen::MatrixXd m(rows, cols);
  for (Index j = 0; j < cols; ++j)
    for (Index i = 0; i < rows; ++i) m(i, j) = n01(gen);
  return m;
}

}  // namespace

TEST_CASE("symmetrize gives (m + m^T) / 2, entry by entry") {
  const Eigen::MatrixXd m = normal_matrix(7, 7, 3);
  Eigen::MatrixXd want(7, 7);
  for (Index i = 0; i < 7; ++i)
    for (Index j = 0; j < 7; ++j) want(i, j) = 0.5 * (m(i, j) + m(j, i));
  Eigen::MatrixXd s = m;
  vi::symmetrize(s);
  CHECK(s == want);
  CHECK(s == s.transpose());
  Eigen::MatrixXd again = s;
  vi::symmetrize(again);
  CHECK(again == s);
  Eigen::MatrixXd one = Eigen::MatrixXd::Constant(1, 1, 2.5), none(0, 0);
  vi::symmetrize(one);
  vi::symmetrize(none);
  CHECK(one(0, 0) == 2.5);
}

TEST_CASE("fullrank natural step: rho = 1 puts the precision on -sym(B L^-1) on an ill-conditioned scale") {
  constexpr Index P = 6, S = 128;
  // q's start: sds from 1e-3 to 1e2 and two coordinates correlated at 0.9999 (an intercept and a
  // column near 30), so that L spans 1e5 and more.
  Eigen::MatrixXd R = Eigen::MatrixXd::Identity(P, P);
  R(0, 1) = R(1, 0) = 0.9999;
  R(2, 3) = R(3, 2) = -0.5;
  const Eigen::VectorXd scale = (Eigen::VectorXd(P) << 1.6, 0.05, 1e-3, 2.0, 100.0, 0.3).finished();
  const Eigen::MatrixXd Sigma0 = scale.asDiagonal() * R * scale.asDiagonal();
  const Eigen::MatrixXd L0 = Sigma0.llt().matrixL();
  const Eigen::MatrixXd Lambda0 = Sigma0.inverse();
  const Eigen::VectorXd mu0 = (Eigen::VectorXd(P) << 9.0, 0.15, -0.01, 1.0, 50.0, -2.0).finished();

  // The curvature the draws show: Lambda0 plus an antisymmetric part of unit size in q's whitened
  // coordinates, A = L0^-T a L0^-1 with a antisymmetric (raw entries up to ~1e6 along the flat
  // direction). Its symmetric part is Lambda0, so the step must leave q's covariance where it is.
  const Eigen::MatrixXd u = normal_matrix(P, P, 11);
  const Eigen::MatrixXd a = 0.25 * (u - u.transpose());
  const Eigen::MatrixXd Linv = L0.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(P, P));
  const Eigen::MatrixXd A = Linv.transpose() * a * Linv;
  const Eigen::MatrixXd B = -(Lambda0 + A) * L0;
  const Eigen::MatrixXd eps = normal_matrix(S, P, 5);
  const Eigen::MatrixXd g = eps * B.transpose();

  vi::FullRank q(P);
  q.params().head(P) = mu0;
  q.set_cholesky(L0);
  vi::NaturalGradient natural(vi::NaturalGradientSchedule{1.0, 1.0, 50.0});
  natural.step(q, eps, g, 1);

  // In q's whitened coordinates the covariance is the identity, to rounding.
  const Eigen::MatrixXd W = Linv * q.covariance() * Linv.transpose();
  CHECK((W - Eigen::MatrixXd::Identity(P, P)).cwiseAbs().maxCoeff() < 1e-8);
  // The mean: rho Lambda^-1 (mean g + Lambda L mean eps) = -Sigma0 A L0 mean eps = -L0 a mean eps
  // (a whitened step of ~0.1, inside the trust region).
  const Eigen::VectorXd ebar = eps.colwise().mean().transpose();
  const Eigen::VectorXd want = mu0 - Sigma0 * A * L0 * ebar;
  const Eigen::VectorXd off = Linv * (q.mean() - want);  // in q's sds
  CHECK(off.cwiseAbs().maxCoeff() < 1e-8);
}

}  // namespace test_natural_gradient
