#pragma once
// The Cholesky factor L of a K x K correlation matrix Omega = L L^T through its free entries: the
// K (K - 1) / 2 strictly lower entries, row by row (L_10, L_20, L_21, L_30, ...; Stan's order),
// each row's diagonal being what makes the row a unit vector,
//   L_ii = sqrt(1 - sum_{j<i} L_ij^2),   L_00 = 1.
// An input whose row has norm >= 1 has no such L: its diagonal is NaN (or 0), and every density
// built on it is NaN (or -inf), which rejects the draw.
#include <cmath>

#include "inference/ad/var.hpp"

namespace bvi::ad::corr {

// Free entries of a K x K factor.
inline Index free_entries(Index K) {
  return K * (K - 1) / 2;
}
// Position of L_ij (i > j, 0-based) among the free entries.
inline Index free_index(Index i, Index j) {
  return i * (i - 1) / 2 + j;
}

// Fills the K x K lower-triangular L (column-major, upper part zeroed) from the free entries
// `w[free_index(i, j) * stride]` (stride: the distance between consecutive free entries).
inline void fill_factor(const double* w, Index stride, Index K, double* L) {
  for (Index c = 0; c < K * K; ++c) L[c] = 0.0;
  L[0] = 1.0;
  for (Index i = 1; i < K; ++i) {
    double ss = 0.0;
    for (Index j = 0; j < i; ++j) {
      const double v = w[free_index(i, j) * stride];
      L[j * K + i] = v;
      ss += v * v;
    }
    L[i * K + i] = std::sqrt(1.0 - ss);
  }
}

}  // namespace bvi::ad::corr
