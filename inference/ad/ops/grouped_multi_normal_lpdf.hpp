#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// The prior of correlated group-level effects: each group's K effects r_g (row s of r, columns
// g K ... g K + K - 1; r is S x (G K)) are multivariate normal with mean 0 and covariance
// diag(sd) Omega diag(sd), Omega = L L^T given by the free entries of its Cholesky factor L
// (S x K(K-1)/2, math/cholesky_corr.hpp), so the covariance's Cholesky factor is diag(sd) L:
//   out_s = sum_g [ -K log(2 pi) / 2 - sum_k log(sd_k L_kk) - |w_g|^2 / 2 ],
//   w_g = L^-1 (r_g / sd)   (forward substitution),
// every constant included (as scipy.stats.multivariate_normal.logpdf). S x 1. With
// v_g = L^-T w_g and the lower-triangular L treated entry by entry,
//   d/dr_gk = -v_gk / sd_k,   d/dsd_k = -G / sd_k + sum_g v_gk r_gk / sd_k^2,
//   d/dL_ij = sum_g v_gi w_gj - [i = j] G / L_ii,
// and a free entry L_ij (i > j) also moves the diagonal L_ii = sqrt(1 - sum_j L_ij^2):
//   d/dL_ij (free) = d/dL_ij - d/dL_ii L_ij / L_ii.
// sd_k <= 0 or an L row of norm >= 1 gives NaN or -inf (a rejected draw). K >= 2.
Var grouped_multi_normal_lpdf(const Var& r, const Var& sd, const Var& L_free);

}  // namespace bvi::ad
