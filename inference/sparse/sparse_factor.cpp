#include "inference/sparse/sparse_factor.hpp"

#include <Eigen/Cholesky>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <utility>

#include "inference/sparse/tail_scratch.hpp"

namespace bvi::vi {

TailScratch& tail_scratch() {
  thread_local TailScratch scratch;
  return scratch;
}

SparseFactor::SparseFactor(std::shared_ptr<const BlockPattern> pattern) : pattern_(std::move(pattern)) {
  const BlockPattern& p = *pattern_;
  const Index n = p.dim();
  // L's pattern: Eigen's AMD ordering and symbolic factorization of the lower triangle, numerically
  // of a diagonally dominant matrix on the pattern (off-diagonals 1, each diagonal 1 + the count of
  // its row's off-diagonals): positive definite, and Eigen's L keeps every structural non-zero.
  const std::vector<BlockPattern::Entry> entries = p.lower_entries();
  std::vector<double> degree(static_cast<std::size_t>(n), 1.0);
  std::vector<Eigen::Triplet<double, int>> triplets;
  triplets.reserve(entries.size() + static_cast<std::size_t>(n));
  for (const auto& e : entries)
    if (e.row != e.col) {
      triplets.emplace_back(static_cast<int>(e.row), static_cast<int>(e.col), 1.0);
      degree[static_cast<std::size_t>(e.row)] += 1.0;
      degree[static_cast<std::size_t>(e.col)] += 1.0;
    }
  for (Index i = 0; i < n; ++i)
    triplets.emplace_back(static_cast<int>(i), static_cast<int>(i), degree[static_cast<std::size_t>(i)]);
  {
    Sparse A(n, n);
    A.setFromTriplets(triplets.begin(), triplets.end());
    A.makeCompressed();
    Eigen::SimplicialLLT<Sparse, Eigen::Lower, Eigen::AMDOrdering<int>> symbolic;
    symbolic.compute(A);
    if (symbolic.info() != Eigen::Success)
      throw std::logic_error("sparse factor: the pattern's symbolic factorization failed");
    const auto& P = symbolic.permutationP().indices();
    perm_.resize(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) perm_[static_cast<std::size_t>(i)] = P.size() ? P[i] : i;
    L_ = symbolic.matrixL().nestedExpression();
  }
  L_.makeCompressed();
  map_slots();
  find_dense_tail();
  map_permuted_lower();
  work_.setZero(n);
  next_pos_.assign(static_cast<std::size_t>(n), 0);
  waiting_.assign(static_cast<std::size_t>(n), -1);
  next_waiting_.assign(static_cast<std::size_t>(n), -1);
}

void SparseFactor::map_permuted_lower() {
  const BlockPattern& p = *pattern_;
  const Index n = p.dim();
  const std::vector<BlockPattern::Entry> entries = p.lower_entries();
  // Entry (row, col) of the layout is (perm row, perm col) of P Lambda P', in the column of the
  // smaller: a counting sort by that column.
  a_ptr_.assign(static_cast<std::size_t>(n + 1), 0);
  auto permuted = [&](const BlockPattern::Entry& e) {
    const Index a = perm_[static_cast<std::size_t>(e.row)], b = perm_[static_cast<std::size_t>(e.col)];
    return std::pair<Index, Index>{std::max(a, b), std::min(a, b)};
  };
  for (const auto& e : entries) ++a_ptr_[static_cast<std::size_t>(permuted(e).second + 1)];
  for (Index j = 0; j < n; ++j) a_ptr_[static_cast<std::size_t>(j + 1)] += a_ptr_[static_cast<std::size_t>(j)];
  a_row_.resize(entries.size());
  a_slot_.resize(entries.size());
  std::vector<int> at(a_ptr_.begin(), a_ptr_.end() - 1);
  for (const auto& e : entries) {
    const auto [r, c] = permuted(e);
    const auto k = static_cast<std::size_t>(at[static_cast<std::size_t>(c)]++);
    a_row_[k] = static_cast<int>(r);
    a_slot_[k] = e.slot;
  }
}

bool SparseFactor::factorize(const Eigen::VectorXd& values) {
  if (factored_ok_ && values.size() == factored_.size() &&
      std::memcmp(values.data(), factored_.data(), sizeof(double) * static_cast<std::size_t>(values.size())) == 0)
    return true;
  factored_ok_ = false;
  inverse_ready_ = false;
  if (values.size() != pattern_->size()) throw std::invalid_argument("sparse factor: values of the wrong size");
  if (!factorize_sparse_columns(values) || !factorize_dense_tail(values)) return false;
  factored_ = values;  // the same size after the first: no allocation
  factored_ok_ = true;
  return true;
}

bool SparseFactor::factorize_sparse_columns(const Eigen::VectorXd& values) {
  const int* Lp = L_.outerIndexPtr();
  const int* Li = L_.innerIndexPtr();
  double* Lx = L_.valuePtr();
  const int t = static_cast<int>(tail_);
  double* x = work_.data();
  int* waiting = waiting_.data();
  int* next_waiting = next_waiting_.data();
  int* next_pos = next_pos_.data();
  std::fill_n(waiting, static_cast<std::size_t>(t), -1);
  // Column j: x = A(j.., j) - sum_k L(j.., k) L(j, k) over the finished columns k with a
  // non-zero in row j (the list waiting on j), then L(j.., j) = x / sqrt(x_j). Each column k
  // then waits on its next row, until its next row is in the tail (factorize_dense_tail reads it
  // from there). Every update lands on L's pattern of column j, which is zeroed again after it.
  for (int j = 0; j < t; ++j) {
    for (int e = a_ptr_[static_cast<std::size_t>(j)]; e < a_ptr_[static_cast<std::size_t>(j + 1)]; ++e)
      x[a_row_[static_cast<std::size_t>(e)]] += values[a_slot_[static_cast<std::size_t>(e)]];
    int k = waiting[j];
    waiting[j] = -1;
    while (k >= 0) {
      const int following = next_waiting[k];
      const int p = next_pos[k], end = Lp[k + 1];
      const double ljk = Lx[p];
      for (int q = p; q < end; ++q) x[Li[q]] -= Lx[q] * ljk;
      next_pos[k] = p + 1;
      if (p + 1 < end && Li[p + 1] < t) {
        next_waiting[k] = waiting[Li[p + 1]];
        waiting[Li[p + 1]] = k;
      }
      k = following;
    }
    const double d = x[j];
    const int begin = Lp[j], end = Lp[j + 1];
    if (!(d > 0.0) || !std::isfinite(d)) {
      for (int q = begin; q < end; ++q) x[Li[q]] = 0.0;
      return false;
    }
    const double ljj = std::sqrt(d);
    Lx[begin] = ljj;
    x[j] = 0.0;
    for (int q = begin + 1; q < end; ++q) {
      Lx[q] = x[Li[q]] / ljj;
      x[Li[q]] = 0.0;
    }
    next_pos[j] = begin + 1;
    if (begin + 1 < end && Li[begin + 1] < t) {
      next_waiting[j] = waiting[Li[begin + 1]];
      waiting[Li[begin + 1]] = j;
    }
  }
  return true;
}

bool SparseFactor::factorize_dense_tail(const Eigen::VectorXd& values) {
  const Index n = L_.cols(), m = n - tail_;
  if (m == 0) return true;
  const int* Lp = L_.outerIndexPtr();
  const int* Li = L_.innerIndexPtr();
  double* Lx = L_.valuePtr();
  const int t = static_cast<int>(tail_);
  // S = A22 - L21 L21' (lower triangle), L21's rows of column k < t from tail_begin_[k] on.
  Eigen::MatrixXd& S = tail_scratch().a;
  S.resize(m, m);
  S.triangularView<Eigen::Lower>().setZero();
  for (int c = t; c < static_cast<int>(n); ++c)
    for (int e = a_ptr_[static_cast<std::size_t>(c)]; e < a_ptr_[static_cast<std::size_t>(c + 1)]; ++e)
      S(a_row_[static_cast<std::size_t>(e)] - t, c - t) += values[a_slot_[static_cast<std::size_t>(e)]];
  // The widest columns' part: W's column per column, its rows in the tail (zero elsewhere), and
  // S -= W W' at once. W lives in the scratch's second m x m matrix (at most m / 2 columns).
  Eigen::MatrixXd& B = tail_scratch().b;
  const auto w = static_cast<Index>(dense_columns_.size());
  if (w > 0) {
    if (B.rows() != m || B.cols() != m) B.resize(m, m);
    Eigen::Map<Eigen::MatrixXd> W(B.data(), m, w);
    gather_dense_columns(W);
    S.selfadjointView<Eigen::Lower>().rankUpdate(W, -1.0);
  }
  // The others', column k's rows in the tail pair by pair: one update to column Li[b] of S each.
  auto dense = dense_columns_.begin();
  for (int k = 0; k < t; ++k) {
    if (dense != dense_columns_.end() && *dense == k) {
      ++dense;
      continue;
    }
    const int end = Lp[k + 1];
    for (int b = tail_begin_[static_cast<std::size_t>(k)]; b < end; ++b) {
      double* col = S.col(Li[b] - t).data();
      const double lb = Lx[b];
      for (int a = b; a < end; ++a) col[Li[a] - t] -= Lx[a] * lb;
    }
  }
  // L22 L22' = S by Eigen's blocked LLT, in place; its pivots must be positive and finite.
  Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> llt(S);
  if (llt.info() != Eigen::Success || !S.diagonal().allFinite()) return false;
  for (Index j = 0; j < m; ++j) {
    double* dst = Lx + Lp[t + j];
    for (Index r = j; r < m; ++r) dst[r - j] = S(r, j);
  }
  return true;
}

void SparseFactor::gather_dense_columns(Eigen::Map<Eigen::MatrixXd>& W) const {
  const int* Lp = L_.outerIndexPtr();
  const int* Li = L_.innerIndexPtr();
  const double* Lx = L_.valuePtr();
  W.setZero();
  for (Index c = 0; c < W.cols(); ++c) {
    const int k = dense_columns_[static_cast<std::size_t>(c)];
    for (int p = tail_begin_[static_cast<std::size_t>(k)]; p < Lp[k + 1]; ++p) W(Li[p] - tail_, c) = Lx[p];
  }
}

double SparseFactor::log_det() const {
  const Sparse& L = L_;
  const int* Lp = L.outerIndexPtr();
  const double* Lx = L.valuePtr();
  double s = 0.0;
  for (Index j = 0; j < L.cols(); ++j) s += std::log(Lx[Lp[j]]);
  return 2.0 * s;
}

Eigen::VectorXd SparseFactor::solve(const Eigen::VectorXd& b) const {
  // Lambda x = b: (P Lambda P') (P x) = P b, with (P v)[perm_[i]] = v[i].
  const Index n = L_.cols();
  if (b.size() != n) throw std::invalid_argument("sparse factor: a right-hand side of the wrong size");
  Eigen::VectorXd w(n);
  for (Index i = 0; i < n; ++i) w[perm_[static_cast<std::size_t>(i)]] = b[i];
  L_.triangularView<Eigen::Lower>().solveInPlace(w);
  L_.transpose().triangularView<Eigen::Upper>().solveInPlace(w);
  Eigen::VectorXd x(n);
  for (Index i = 0; i < n; ++i) x[i] = w[perm_[static_cast<std::size_t>(i)]];
  return x;
}

Index SparseFactor::find(Index r, Index c) const {
  const Sparse& L = L_;
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
  const Sparse& L = L_;
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
  // Where each column's rows in the tail begin, and the columns before the tail with the most rows
  // in it: rows c >= m / 4 of the tail's m, at most m / 2 of them (the largest c). Their part of
  // L21 L21' is a dense rank update at BLAS-3 speed (m^2 flops a column, against c^2 / 2
  // scattered updates: quicker from c ~ m / 4 on); on InstEval 335 columns, 90 % of the updates.
  tail_begin_.assign(static_cast<std::size_t>(n), 0);
  for (Index k = 0; k < n; ++k)
    tail_begin_[static_cast<std::size_t>(k)] =
        static_cast<int>(std::lower_bound(Li + Lp[k], Li + Lp[k + 1], static_cast<int>(tail_)) - Li);
  dense_columns_.clear();
  const Index m = n - tail_;
  if (m == 0) return;
  std::vector<std::pair<int, int>> wide;  // (rows in the tail, column)
  for (Index k = 0; k < tail_; ++k) {
    const int c = Lp[k + 1] - tail_begin_[static_cast<std::size_t>(k)];
    if (4 * c >= m) wide.emplace_back(c, static_cast<int>(k));
  }
  const std::size_t most = static_cast<std::size_t>(m / 2);
  if (wide.size() > most) {
    std::nth_element(wide.begin(), wide.begin() + static_cast<std::ptrdiff_t>(most), wide.end(), std::greater<>());
    wide.resize(most);
  }
  for (const auto& [c, k] : wide) dense_columns_.push_back(k);
  std::sort(dense_columns_.begin(), dense_columns_.end());
}

void SparseFactor::scale_draws(Eigen::Ref<Eigen::MatrixXd> E) const {
  Eigen::MatrixXd X = E;
  L_.transpose().triangularView<Eigen::Upper>().solveInPlace(X);  // L^-T e, in permuted coordinates
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
  const Sparse& L = L_;
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

Index SparseFactor::factor_nonzeros() const { return L_.nonZeros(); }

}  // namespace bvi::vi
