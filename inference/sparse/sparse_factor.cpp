#include "inference/sparse/sparse_factor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace bvi::vi {

SparseFactor::SparseFactor(std::shared_ptr<const BlockPattern> pattern) : pattern_(std::move(pattern)) {
  const BlockPattern& p = *pattern_;
  const std::vector<BlockPattern::Entry> entries = p.lower_entries();
  // Each value of A_ starts as its slot + 1 (exact in a double), which names, once A_ is
  // compressed, the slot each stored value is copied from.
  std::vector<Eigen::Triplet<double, int>> triplets;
  triplets.reserve(entries.size());
  for (const auto& e : entries)
    triplets.emplace_back(static_cast<int>(e.row), static_cast<int>(e.col), static_cast<double>(e.slot + 1));
  A_.resize(p.dim(), p.dim());
  A_.setFromTriplets(triplets.begin(), triplets.end());
  A_.makeCompressed();
  a_slot_.resize(static_cast<std::size_t>(A_.nonZeros()));
  for (Index k = 0; k < A_.nonZeros(); ++k) a_slot_[static_cast<std::size_t>(k)] = static_cast<Index>(A_.valuePtr()[k]) - 1;
  llt_.analyzePattern(A_);
  const auto& P = llt_.permutationP().indices();
  perm_.resize(static_cast<std::size_t>(p.dim()));
  for (Index i = 0; i < p.dim(); ++i) perm_[static_cast<std::size_t>(i)] = P.size() ? P[i] : i;
  tail_ = p.dim();  // found with the factor's pattern, at the first factorization
}

bool SparseFactor::factorize(const Eigen::VectorXd& values) {
  if (factored_ok_ && values.size() == factored_.size() &&
      std::memcmp(values.data(), factored_.data(), sizeof(double) * static_cast<std::size_t>(values.size())) == 0)
    return true;
  factored_ok_ = false;
  inverse_ready_ = false;
  double* a = A_.valuePtr();
  for (std::size_t k = 0; k < a_slot_.size(); ++k) a[k] = values[a_slot_[k]];
  llt_.factorize(A_);
  if (llt_.info() != Eigen::Success) return false;
  if (slot_in_L_.empty()) {
    map_slots();
    find_dense_tail();
  }
  factored_ = values;  // the same size after the first: no allocation
  factored_ok_ = true;
  return true;
}

double SparseFactor::log_det() const {
  const Sparse& L = llt_.matrixL().nestedExpression();
  const int* Lp = L.outerIndexPtr();
  const double* Lx = L.valuePtr();
  double s = 0.0;
  for (Index j = 0; j < L.cols(); ++j) s += std::log(Lx[Lp[j]]);
  return 2.0 * s;
}

Eigen::VectorXd SparseFactor::solve(const Eigen::VectorXd& b) const { return llt_.solve(b); }

Index SparseFactor::find(Index r, Index c) const {
  const Sparse& L = llt_.matrixL().nestedExpression();
  const int* Lp = L.outerIndexPtr();
  const int* Li = L.innerIndexPtr();
  const int* first = Li + Lp[c];
  const int* last = Li + Lp[c + 1];
  const int* it = std::lower_bound(first, last, static_cast<int>(r));
  if (it == last || *it != r) throw std::logic_error("sparse factor: an entry outside the factor's pattern");
  return it - Li;
}

void SparseFactor::map_slots() {
  const BlockPattern& p = *pattern_;
  slot_in_L_.assign(static_cast<std::size_t>(p.size()), -1);
  for (const auto& e : p.lower_entries()) {
    const Index a = perm_[static_cast<std::size_t>(e.row)], b = perm_[static_cast<std::size_t>(e.col)];
    const Index at = find(std::max(a, b), std::min(a, b));
    slot_in_L_[static_cast<std::size_t>(e.slot)] = at;
    // The upper entry of a block stored whole reads the same place.
    const Index upper = p.slot(e.col, e.row);
    if (upper != e.slot) slot_in_L_[static_cast<std::size_t>(upper)] = at;
  }
}

void SparseFactor::find_dense_tail() {
  const Sparse& L = llt_.matrixL().nestedExpression();
  const int* Lp = L.outerIndexPtr();
  const int* Li = L.innerIndexPtr();
  const Index n = L.cols();
  contiguous_.assign(static_cast<std::size_t>(n), 0);
  for (Index j = 0; j < n; ++j) {
    const Index count = Lp[j + 1] - Lp[j];
    contiguous_[static_cast<std::size_t>(j)] = count > 0 && Li[Lp[j + 1] - 1] - j + 1 == count;
  }
  tail_ = n;
  while (tail_ > 0 && Lp[tail_] - Lp[tail_ - 1] == n - tail_ + 1) --tail_;
  if (n - tail_ < kDenseTail) tail_ = n;
}

void SparseFactor::inverse_on_pattern(Eigen::VectorXd& sigma) const {
  const Sparse& L = llt_.matrixL().nestedExpression();
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
      dense_a_.resize(m, m);
      dense_b_.setIdentity(m, m);
      for (Index j = 0; j < m; ++j)
        for (Index r = j; r < m; ++r) dense_a_(r, j) = Lx[Lp[tail_ + j] + (r - j)];
      dense_a_.triangularView<Eigen::Lower>().solveInPlace(dense_b_);  // L22^-1
      dense_a_.setZero();
      dense_a_.selfadjointView<Eigen::Lower>().rankUpdate(dense_b_.transpose());  // L22^-T L22^-1
      for (Index j = 0; j < m; ++j)
        for (Index r = j; r < m; ++r) z_[Lp[tail_ + j] + (r - j)] = dense_a_(r, j);
    }
    for (Index j = tail_ - 1; j >= 0; --j) {
      const Index d = Lp[j], end = Lp[j + 1];
      const double ljj = Lx[d];
      // s_a = sum_b L_{r_b j} Z(r_a, r_b) over the rows r_a < r_b ... of column j below its
      // diagonal, each pair once: Z(r_b, r_a) sits in column r_a (row r_b), at Lp[r_a] + r_b - r_a
      // when that column's rows are contiguous, else where its positions, scattered into mark_
      // first, say; every r_b is there (struct(j) is a clique of the filled graph).
      for (Index a = d + 1; a < end; ++a) acc_[a - d] = 0.0;
      for (Index a = d + 1; a < end; ++a) {
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

void SparseFactor::scale_draws(Eigen::Ref<Eigen::MatrixXd> E) const {
  Eigen::MatrixXd X = E;
  llt_.matrixU().solveInPlace(X);  // L^-T e, in permuted coordinates
  for (Index i = 0; i < E.rows(); ++i) E.row(i) = X.row(perm_[static_cast<std::size_t>(i)]);
}

void SparseFactor::draws(const Eigen::Ref<const Eigen::MatrixXd>& eps, const Eigen::Ref<const Eigen::VectorXd>& shift,
                         Eigen::Ref<Eigen::MatrixXd> zeta) const {
  // x = L^-T e in permuted coordinates, coordinate j of every draw at once: column j of L holds
  // L_kj (k > j, after its diagonal), so x_j = (e_j - sum_k L_kj x_k) / L_jj, from the last j,
  // subtracting in L's row order and dividing last, as Eigen's sparse triangular solve does.
  // x_j is kept in zeta's column i with perm_[i] = j (where scale_draws would move it), so
  // nothing is copied or transposed: about nnz(L) S multiply-adds on contiguous columns, against
  // two S x P transposes and two S x P copies (each a fresh 6 MB of page faults for 1000 draws of
  // 800 coordinates) before.
  const Sparse& L = llt_.matrixL().nestedExpression();
  const int* Lp = L.outerIndexPtr();
  const int* Li = L.innerIndexPtr();
  const double* Lx = L.valuePtr();
  const Index n = L.cols(), S = eps.rows();
  if (eps.cols() != n || zeta.rows() != S || zeta.cols() != n || shift.size() != n)
    throw std::invalid_argument("sparse factor: draws of the wrong shape");
  if (S > 0 && n > 0 && eps.data() == zeta.data()) throw std::invalid_argument("sparse factor: draws in place");
  std::vector<Index> column(static_cast<std::size_t>(n));  // permuted coordinate -> zeta's column
  for (Index i = 0; i < n; ++i) column[static_cast<std::size_t>(perm_[static_cast<std::size_t>(i)])] = i;
  // 64 draws at a time, so that the columns a step reads (512 bytes each) stay in cache; each
  // value's arithmetic is the same for any block size.
  constexpr Index kBlock = 64;
  for (Index s0 = 0; s0 < S; s0 += kBlock) {
    const Index m = std::min(kBlock, S - s0);
    auto x_of = [&](Index j) { return zeta.col(column[static_cast<std::size_t>(j)]).data() + s0; };
    for (Index j = 0; j < n; ++j) std::copy_n(eps.col(j).data() + s0, m, x_of(j));
    for (Index j = n - 1; j >= 0; --j) {
      double* x = x_of(j);
      for (Index p = Lp[j] + 1; p < Lp[j + 1]; ++p) {
        const double l = Lx[p];
        const double* xk = x_of(Li[p]);
        for (Index s = 0; s < m; ++s) x[s] -= l * xk[s];
      }
      const double d = Lx[Lp[j]];
      for (Index s = 0; s < m; ++s) x[s] /= d;
    }
    for (Index i = 0; i < n; ++i) {
      double* z = zeta.col(i).data() + s0;
      for (Index s = 0; s < m; ++s) z[s] += shift[i];
    }
  }
}

Index SparseFactor::factor_nonzeros() const { return llt_.matrixL().nestedExpression().nonZeros(); }

}  // namespace bvi::vi
