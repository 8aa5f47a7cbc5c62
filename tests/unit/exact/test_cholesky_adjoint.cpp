// The covariance gradient of a function of the Cholesky factor, against central differences of
// F(chol(Sigma)) in the entries of Sigma (symmetric perturbations).
#include <doctest/doctest.h>

#include <Eigen/Cholesky>
#include <cmath>

#include "inference/exact/cholesky_adjoint.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_cholesky_adjoint {

using namespace bvi;

TEST_CASE("cholesky_adjoint gives dF/dSigma for F a function of L = chol(Sigma)") {
  const int P = 4;
  Eigen::MatrixXd A(P, P);
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) A(i, j) = std::cos(1.0 + i * 3 + j) + (i == j ? 3.0 : 0.0);
  const Eigen::MatrixXd Sigma = A * A.transpose();
  Eigen::MatrixXd W(P, P);  // F(L) = sum W .* L + sum sin(L)
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) W(i, j) = std::sin(2.0 + i + 5 * j);
  auto F = [&](const Eigen::MatrixXd& S) {
    const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(S).matrixL();
    return (W.array() * L.array()).sum() + L.array().sin().sum();
  };
  const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(Sigma).matrixL();
  Eigen::MatrixXd Lbar = (W.array() + L.array().cos()).matrix().triangularView<Eigen::Lower>();
  const Eigen::MatrixXd G = vi::cholesky_adjoint(L, Lbar);
  CHECK((G - G.transpose()).cwiseAbs().maxCoeff() < 1e-14);
  const double h = 1e-6;
  for (int i = 0; i < P; ++i)
    for (int j = 0; j <= i; ++j) {
      Eigen::MatrixXd E = Eigen::MatrixXd::Zero(P, P);
      E(i, j) = E(j, i) = 1.0;
      const double fd = (F(Sigma + h * E) - F(Sigma - h * E)) / (2 * h);
      // dF = tr(G dSigma): a symmetric unit perturbation of (i, j) counts G_ij twice off the diagonal.
      const double analytic = i == j ? G(i, i) : 2.0 * G(i, j);
      CHECK(fd == doctest::Approx(analytic).epsilon(1e-7));
    }
}

}  // namespace test_cholesky_adjoint
