#pragma once
// The symmetric part of a square matrix, in place: m_ij = m_ji = (m_ij + m_ji) / 2.
//
// Not `m = 0.5 * (m + m.transpose())`: Eigen evaluates that into m coefficient by coefficient,
// column by column, so every entry above the diagonal reads an entry below it that was already
// overwritten, and comes out as 0.75 m_ij + 0.25 m_ji. The result is not symmetric, and a
// Cholesky factorization, which reads one triangle, then sees a quarter of the antisymmetric part
// as if it were curvature (on a raw-scale design, entries ~1e6 of noise in a direction whose
// precision is ~1). `.eval()` avoids it at the cost of a temporary; this loop needs none.
#include <Eigen/Core>

namespace bvi::vi {

inline void symmetrize(Eigen::MatrixXd& m) {
  const Eigen::Index n = m.rows();
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = j + 1; i < n; ++i) {
      const double v = 0.5 * (m(i, j) + m(j, i));
      m(i, j) = v;
      m(j, i) = v;
    }
}

}  // namespace bvi::vi
