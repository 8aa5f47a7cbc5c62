#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Stan's lkj_corr_cholesky_lpdf(L | eta) for S draws of the Cholesky factor L of a K x K
// correlation matrix, given by its free entries (S x K(K-1)/2, see math/cholesky_corr.hpp): the
// density of L induced by Omega = L L^T ~ LKJ(eta) (Lewandowski, Kurowicka & Joe 2009),
//   log p(L) = sum_{i=2}^{K} (K - i + 2 eta - 2) log L_ii - log c_K(eta),
//   log c_K(eta) = sum_{k=1}^{K-1} [ (2 eta - 2 + K - k)(K - k) log 2
//                                    + (K - k) log B(eta + (K - k - 1)/2, eta + (K - k - 1)/2) ],
// c_K the normalizing constant of LKJ(Omega | eta) ∝ det(Omega)^(eta - 1) (c_3(1) = pi^2 / 2, the
// volume of the 3 x 3 correlation matrices). Every constant included; S x 1.
// With log L_ii = log(1 - s_i) / 2, s_i = sum_{j<i} L_ij^2:
//   d/dL_ij = -(K - i + 2 eta - 2) L_ij / (1 - s_i).
// eta > 0 (std::invalid_argument otherwise), K >= 2.
Var lkj_corr_cholesky_lpdf(const Var& L_free, double eta, Index K);

// log c_K(eta) above.
double lkj_log_normalizer(double eta, Index K);

}  // namespace bvi::ad
