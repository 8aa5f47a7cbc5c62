#include "inference/exact/cholesky_adjoint.hpp"

#include <Eigen/Dense>

namespace bvi::vi {

Eigen::MatrixXd cholesky_adjoint(const Eigen::MatrixXd& L, const Eigen::MatrixXd& Lbar) {
  Eigen::MatrixXd A = L.transpose() * Lbar.triangularView<Eigen::Lower>();
  Eigen::MatrixXd phi = A.triangularView<Eigen::StrictlyLower>();
  phi.diagonal() = 0.5 * A.diagonal();
  Eigen::MatrixXd B = 0.5 * (phi + phi.transpose());
  // G = L^-T B L^-1: two triangular solves.
  Eigen::MatrixXd X = L.transpose().triangularView<Eigen::Upper>().solve(B);  // L^-T B
  Eigen::MatrixXd G = L.transpose().triangularView<Eigen::Upper>().solve(X.transpose()).transpose();
  return 0.5 * (G + G.transpose());
}

}  // namespace bvi::vi
