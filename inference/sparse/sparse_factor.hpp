#pragma once
// A sparse Cholesky factorization of a symmetric matrix on a BlockPattern (a precision Lambda),
// with what the exact method needs of it: solves, log det, draws Sigma^{1/2} e, and the entries of
// Sigma = Lambda^-1 on the pattern by selected inversion, never the dense Sigma.
//
// The ordering and the factor's pattern come once, at construction, from Eigen's AMD ordering and
// SimplicialLLT's symbolic analysis (a factorization of a diagonally dominant matrix on the
// pattern: L's pattern is structural). Each factorize() is numeric only, left-looking column by
// column: column j gathers the updates of the earlier columns with a non-zero in row j (linked
// lists of the columns waiting on each row: O(n) memory besides L). For one grouping factor (or
// nested ones) AMD eliminates the groups' effects before the globals, so the factor has no fill
// beyond the pattern and the cost per factorization is linear in the groups. Where the ordering
// leaves a dense tail (the last columns a full lower triangle: crossed factors' fill, 739 of lme4
// InstEval's 4122 columns), the tail is the Schur complement A22 - L21 L21' gathered from the
// sparse columns before it, factorized by Eigen's blocked dense LLT; the columns with the most
// rows in the tail add their part of L21 L21' by one dense rank update (on InstEval a
// factorization took 56 ms with every update scattered, 20 ms so).
//
// Selected inversion (Takahashi, Fagan and Chen 1973; the recursions INLA uses): with
// P Lambda P' = L L' and Z = (P Lambda P')^-1, Z L = L^-T gives, column j from the last,
//   Z_ij = -(sum_{k in struct(j), k > j} Z_ik L_kj) / L_jj            (i in struct(j), i > j),
//   Z_jj = (1 / L_jj - sum_{k in struct(j), k > j} Z_kj L_kj) / L_jj,
// which reads only entries of Z on L's pattern (struct(j) is a clique of the filled graph): all of
// Sigma on L's pattern, and so on the precision's, at the cost of one more factorization. Where
// the ordering leaves a dense tail (crossed factors' fill: 739 of lme4 InstEval's 4122 columns),
// Z's block there is (L22 L22')^-1, taken by dense triangular algebra, the widest columns before
// it take the sums over their tail rows from one dense product with that block (107 ms -> 58 ms
// on InstEval), and the recursion reads a column with contiguous rows by offset instead of
// scattering its positions first.
#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <vector>

#include "inference/sparse/block_pattern.hpp"

namespace bvi::vi {

class SparseFactor {
 public:
  explicit SparseFactor(std::shared_ptr<const BlockPattern> pattern);

  const BlockPattern& pattern() const { return *pattern_; }
  const std::shared_ptr<const BlockPattern>& shared_pattern() const { return pattern_; }
  // Factorizes the matrix whose values on the pattern are `values`; false when it is not
  // positive definite or a pivot is not finite (then nothing but another factorize() may be
  // called). The same values as the last factorization's keep it, and the inverse on the pattern
  // once computed: the Monte Carlo step asks q's factor for q's precision in its draws, its closed-form part and its stopping
  // rule's sds (6 factorizations and 3 selected inversions a step before, each of 0.2 to 0.5 s on
  // lme4's InstEval, where the crossed factors' fill makes a dense tail of 739 columns).
  bool factorize(const Eigen::VectorXd& values);
  // Of the last matrix factorized: log det, Lambda^-1 b, the inverse's entries on the pattern
  // (as values()), and e -> Sigma^{1/2} e for every column of E (P x S), Sigma^{1/2} = P' L^-T.
  double log_det() const;
  Eigen::VectorXd solve(const Eigen::VectorXd& b) const;
  void inverse_on_pattern(Eigen::VectorXd& sigma) const;
  void scale_draws(Eigen::Ref<Eigen::MatrixXd> E) const;
  // The same for draws stored as rows (eps: S x P, one draw per row), into zeta (S x P), with
  // `shift` added to every draw: zeta_s = shift + Sigma^{1/2} eps_s. No transposed copies: the
  // back substitution L' x = e runs on whole columns of S draws (see the .cpp).
  void draws(const Eigen::Ref<const Eigen::MatrixXd>& eps, const Eigen::Ref<const Eigen::VectorXd>& shift,
             Eigen::Ref<Eigen::MatrixXd> zeta) const;
  // The factor's non-zeros (the pattern's lower triangle plus the fill-in of the ordering).
  Index factor_nonzeros() const;
  // The columns of the factor's dense tail, factorized and inverted by dense algebra (0: none).
  Index dense_tail() const { return pattern_->dim() - tail_; }
  // The columns before the tail whose updates to it are one dense rank update (see the .cpp).
  Index dense_update_columns() const { return static_cast<Index>(dense_columns_.size()); }

 private:
  using Sparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
  // The position in L's value array of entry (r, c), r >= c, in permuted coordinates.
  Index find(Index r, Index c) const;
  void map_slots();
  // The factor's columns whose rows are contiguous, and where its dense tail starts (n: none, or
  // fewer than kDenseTail columns, where the sparse recursions alone are as quick).
  void find_dense_tail();
  // The permuted lower triangle's entries by column, as factorize() reads them.
  void map_permuted_lower();
  // factorize()'s arithmetic on the columns before the tail, then on the tail.
  bool factorize_sparse_columns(const Eigen::VectorXd& values);
  bool factorize_dense_tail(const Eigen::VectorXd& values);
  // W (m x dense_columns_): the widest columns' rows in the tail, zero elsewhere, for the
  // factorization's rank update and the inverse's product with Z22.
  void gather_dense_columns(Eigen::Map<Eigen::MatrixXd>& W) const;
  static constexpr Index kDenseTail = 32;

  std::shared_ptr<const BlockPattern> pattern_;
  std::vector<Index> perm_;        // layout column -> row of the permuted matrix
  Sparse L_;                       // P Lambda P' = L L': the pattern fixed at construction
  std::vector<int> a_ptr_, a_row_;  // the permuted lower triangle by column: its rows (>= the column)
  std::vector<Index> a_slot_;       // and each entry's slot in values()
  std::vector<Index> slot_in_L_;   // per slot of values(): its position in L
  Eigen::VectorXd work_;           // factorize: the column being formed, scattered (zero between columns)
  std::vector<int> next_pos_;      // factorize: per finished column, its next row's position in L
  std::vector<int> waiting_, next_waiting_;  // factorize: the columns waiting on each row, linked
  Eigen::VectorXd factored_;       // the values of the last successful factorization
  bool factored_ok_ = false;
  mutable bool inverse_ready_ = false;  // z_ holds the inverse of that factorization
  mutable Eigen::VectorXd z_;      // the inverse on L's pattern
  mutable Eigen::VectorXd acc_;    // selected inversion: a column's sums
  mutable std::vector<Index> mark_;  // selected inversion: a column's row positions
  std::vector<char> contiguous_;     // per column of L: rows j, j + 1, ... without a gap
  Index tail_ = 0;                   // first column of L's dense tail
  std::vector<int> tail_begin_;      // per column of L: the position of its first row in the tail
  std::vector<int> dense_columns_;   // the columns before the tail whose part of L21 L21' is dense
};

}  // namespace bvi::vi
