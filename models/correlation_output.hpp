#pragma once
// A group term's correlations as users see them. Inside the model a correlation matrix
// Omega = L L^T is held by the free entries of its Cholesky factor L (ad::corr: L_10, L_20, L_21,
// ...), on which Stan's lkj_corr_cholesky density is defined; outputs (draws.csv, the summary)
// and eval's input show Omega's own entries Omega_ij, i > j, in the same order (cor_F.i.j).
#include <Eigen/Core>

namespace bvi::models {

// Omega's strictly lower entries from L's free entries (both K (K - 1) / 2 values, `stride`
// apart).
void correlations_from_factor(const double* w, Eigen::Index stride, Eigen::Index K, double* omega);

// L's free entries from Omega's strictly lower entries; false when that Omega (unit diagonal) is
// not positive definite, i.e. no correlation matrix.
bool factor_from_correlations(const double* omega, Eigen::Index stride, Eigen::Index K, double* w);

// The gradient with respect to Omega's entries of a function whose gradient with respect to L's
// free entries `w` is `g_w`: g_omega = A^-T g_w, A = d omega / d w (Omega_ij = sum_{m<j} L_im L_jm
// + L_ij L_jj, each row's diagonal L_jj = sqrt(1 - sum_{m<j} L_jm^2) moving with it).
void gradient_to_correlations(const double* w, const double* g_w, Eigen::Index stride, Eigen::Index K,
                              double* g_omega);

}  // namespace bvi::models
