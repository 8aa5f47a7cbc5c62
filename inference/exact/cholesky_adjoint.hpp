#pragma once
// The gradient of a function of a covariance's Cholesky factor with respect to the covariance:
// for Sigma = L L' (L lower triangular, positive diagonal) and F(L) with dF/dL = Lbar (lower
// part used), returns the symmetric G with dF = tr(G dSigma):
//   dL = L Phi(L^-1 dSigma L^-T),  Phi = lower triangle with the diagonal halved,
//   so G = L^-T sym(Phi(L' Lbar)) L^-1,  sym(A) = (A + A')/2.
// (The reverse-mode rule of the Cholesky decomposition, Murray 2016.) A sample average over
// draws zeta_k = m + L eps_k is a function of L; through L = chol(Sigma) it becomes a function of
// Sigma, whose natural-gradient fixed point is then the same as for the exact terms.
#include <Eigen/Core>

namespace bvi::vi {

Eigen::MatrixXd cholesky_adjoint(const Eigen::MatrixXd& L, const Eigen::MatrixXd& Lbar);

}  // namespace bvi::vi
