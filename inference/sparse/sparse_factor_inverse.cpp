// SparseFactor's selected inverse (the recursions in sparse_factor.hpp's comment): Sigma on L's
// pattern, from the last column to the first, the dense tail's block by dense algebra.
#include <Eigen/Dense>

#include "inference/sparse/sparse_factor.hpp"
#include "inference/sparse/tail_scratch.hpp"

namespace bvi::vi {

void SparseFactor::inverse_on_pattern(Eigen::VectorXd& sigma) const {
  const Sparse& L = L_;
  const int* Lp = L.outerIndexPtr();
  const int* Li = L.innerIndexPtr();
  const double* Lx = L.valuePtr();
  const Index n = L.cols();
  if (!inverse_ready_) {
    z_.setZero(L.nonZeros());
    acc_.resize(n);
    mark_.resize(static_cast<std::size_t>(n));
    // The dense tail (columns tail_.. of L a full lower triangle, where crossed factors' fill
    // gathers): Z's block there is (L22 L22')^-1 = L22^-T L22^-1, by dense triangular algebra at
    // BLAS-3 speed instead of the recursion's scattered reads below.
    const Index m = n - tail_;
    if (m > 0) {
      Eigen::MatrixXd& dense_a = tail_scratch().a;
      Eigen::MatrixXd& dense_b = tail_scratch().b;
      dense_a.resize(m, m);
      dense_b.setIdentity(m, m);
      for (Index j = 0; j < m; ++j)
        for (Index r = j; r < m; ++r) dense_a(r, j) = Lx[Lp[tail_ + j] + (r - j)];
      dense_a.triangularView<Eigen::Lower>().solveInPlace(dense_b);  // L22^-1
      dense_a.setZero();
      dense_a.selfadjointView<Eigen::Lower>().rankUpdate(dense_b.transpose());  // L22^-T L22^-1
      for (Index j = 0; j < m; ++j)
        for (Index r = j; r < m; ++r) z_[Lp[tail_ + j] + (r - j)] = dense_a(r, j);
    }
    // The widest columns before the tail (dense_columns_): Z22 times their rows in the tail, for
    // all of them at once, Y = Z22 W (W as factorize_dense_tail's), in the scratch's second matrix
    // (W then Y, m x w each, w <= m / 2). Row r of column c of Y is the recursion's sum over the
    // column's tail rows b of Z(r, r_b) L_{r_b j}, which its pairs of tail rows would gather one
    // by one.
    const auto w = static_cast<Index>(dense_columns_.size());
    if (w > 0) {
      Eigen::MatrixXd& B = tail_scratch().b;
      Eigen::Map<Eigen::MatrixXd> W(B.data(), m, w), Y(B.data() + m * w, m, w);
      gather_dense_columns(W);
      Y.noalias() = tail_scratch().a.selfadjointView<Eigen::Lower>() * W;
    }
    Index dense = w - 1;  // the widest columns are met from the last
    for (Index j = tail_ - 1; j >= 0; --j) {
      const Index d = Lp[j], end = Lp[j + 1];
      const double ljj = Lx[d];
      // s_a = sum_b L_{r_b j} Z(r_a, r_b) over the rows r_a < r_b ... of column j below its
      // diagonal, each pair once: Z(r_b, r_a) sits in column r_a (row r_b), at Lp[r_a] + r_b - r_a
      // when that column's rows are contiguous, else where its positions, scattered into mark_
      // first, say; every r_b is there (struct(j) is a clique of the filled graph). In a widest
      // column the pairs of tail rows (and each one's diagonal term) are Y's column instead.
      Index stop = end;
      const double* y = nullptr;
      if (dense >= 0 && dense_columns_[static_cast<std::size_t>(dense)] == j) {
        stop = tail_begin_[static_cast<std::size_t>(j)];
        y = tail_scratch().b.data() + m * w + m * dense;  // Y's column, by row - tail_
        --dense;
      }
      for (Index a = d + 1; a < end; ++a) acc_[a - d] = 0.0;
      for (Index a = d + 1; a < stop; ++a) {
        const Index i = Li[a];
        acc_[a - d] += Lx[a] * z_[Lp[i]];
        const double la = Lx[a];
        double sa = 0.0;
        if (contiguous_[static_cast<std::size_t>(i)]) {
          const double* zi = z_.data() + Lp[i] - i;
          for (Index b = a + 1; b < end; ++b) {
            const double zik = zi[Li[b]];
            sa += Lx[b] * zik;
            acc_[b - d] += la * zik;
          }
        } else {
          for (Index p = Lp[i]; p < Lp[i + 1]; ++p) mark_[static_cast<std::size_t>(Li[p])] = p;
          for (Index b = a + 1; b < end; ++b) {
            const double zik = z_[mark_[static_cast<std::size_t>(Li[b])]];
            sa += Lx[b] * zik;
            acc_[b - d] += la * zik;
          }
        }
        acc_[a - d] += sa;
      }
      for (Index a = stop; a < end; ++a) acc_[a - d] += y[Li[a] - tail_];
      for (Index a = d + 1; a < end; ++a) z_[a] = -acc_[a - d] / ljj;
      double s = 0.0;
      for (Index b = d + 1; b < end; ++b) s += Lx[b] * z_[b];
      z_[d] = (1.0 / ljj - s) / ljj;
    }
    inverse_ready_ = true;
  }
  sigma.resize(pattern_->size());
  for (Index s = 0; s < pattern_->size(); ++s) sigma[s] = z_[slot_in_L_[static_cast<std::size_t>(s)]];
}

}  // namespace bvi::vi
