#include "models/correlation_output.hpp"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>

#include "inference/ad/math/cholesky_corr.hpp"

namespace bvi::models {

namespace corr = ad::corr;

void correlations_from_factor(const double* w, Eigen::Index stride, Eigen::Index K, double* omega) {
  Eigen::MatrixXd L(K, K);
  corr::fill_factor(w, stride, K, L.data());
  const Eigen::MatrixXd O = L * L.transpose();
  for (Eigen::Index i = 1; i < K; ++i)
    for (Eigen::Index j = 0; j < i; ++j) omega[corr::free_index(i, j) * stride] = O(i, j);
}

bool factor_from_correlations(const double* omega, Eigen::Index stride, Eigen::Index K, double* w) {
  Eigen::MatrixXd O = Eigen::MatrixXd::Identity(K, K);
  for (Eigen::Index i = 1; i < K; ++i)
    for (Eigen::Index j = 0; j < i; ++j) O(i, j) = O(j, i) = omega[corr::free_index(i, j) * stride];
  if (!O.allFinite()) return false;
  const Eigen::LLT<Eigen::MatrixXd> llt(O);
  if (llt.info() != Eigen::Success) return false;
  const Eigen::MatrixXd L = llt.matrixL();
  for (Eigen::Index i = 0; i < K; ++i)
    if (!(L(i, i) > 0)) return false;
  for (Eigen::Index i = 1; i < K; ++i)
    for (Eigen::Index j = 0; j < i; ++j) w[corr::free_index(i, j) * stride] = L(i, j);
  return true;
}

void gradient_to_correlations(const double* w, const double* g_w, Eigen::Index stride, Eigen::Index K,
                              double* g_omega) {
  const Eigen::Index n = corr::free_entries(K);
  Eigen::MatrixXd L(K, K);
  corr::fill_factor(w, stride, K, L.data());
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);  // A(omega_ij, w_ab)
  for (Eigen::Index i = 1; i < K; ++i)
    for (Eigen::Index j = 0; j < i; ++j) {
      const Eigen::Index row = corr::free_index(i, j);
      for (Eigen::Index m = 0; m < j; ++m) {
        A(row, corr::free_index(i, m)) += L(j, m);
        A(row, corr::free_index(j, m)) += L(i, m) - L(i, j) * L(j, m) / L(j, j);
      }
      A(row, corr::free_index(i, j)) += L(j, j);
    }
  Eigen::VectorXd gw(n);
  for (Eigen::Index k = 0; k < n; ++k) gw[k] = g_w[k * stride];
  const Eigen::VectorXd go = A.transpose().partialPivLu().solve(gw);
  for (Eigen::Index k = 0; k < n; ++k) g_omega[k * stride] = go[k];
}

}  // namespace bvi::models
