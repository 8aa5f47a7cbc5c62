#pragma once
// A sparse Cholesky factorization of a symmetric matrix on a BlockPattern (a precision Lambda),
// with what the exact method needs of it: solves, log det, draws Sigma^{1/2} e, and the entries of
// Sigma = Lambda^-1 on the pattern by selected inversion, never the dense Sigma.
//
// Eigen's SimplicialLLT (already a dependency) with its AMD fill-reducing ordering: the symbolic
// analysis (ordering, the factor's pattern) is done once, each factorize() is numeric only. For one
// grouping factor (or nested ones) AMD eliminates the groups' effects before the globals, so the
// factor has no fill beyond the pattern and the cost per factorization is linear in the groups.
//
// Selected inversion (Takahashi, Fagan and Chen 1973; the recursions INLA uses): with
// P Lambda P' = L L' and Z = (P Lambda P')^-1, Z L = L^-T gives, column j from the last,
//   Z_ij = -(sum_{k in struct(j), k > j} Z_ik L_kj) / L_jj            (i in struct(j), i > j),
//   Z_jj = (1 / L_jj - sum_{k in struct(j), k > j} Z_kj L_kj) / L_jj,
// which reads only entries of Z on L's pattern (struct(j) is a clique of the filled graph): all of
// Sigma on L's pattern, and so on the precision's, at the cost of one more factorization. Where
// the ordering leaves a dense tail (crossed factors' fill: 739 of lme4 InstEval's 4122 columns),
// Z's block there is (L22 L22')^-1, taken by dense triangular algebra, and the recursion reads a
// column with contiguous rows by offset instead of scattering its positions first.
#include <Eigen/Core>
#include <Eigen/Dense>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>
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
  // positive definite (then nothing but another factorize() may be called). The same values as
  // the last factorization's keep it, and the inverse on the pattern once computed: the Monte Carlo
  // step asks q's factor for q's precision in its draws, its closed-form part and its stopping
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
  // The columns of the factor's dense tail that the selected inverse takes by dense algebra (0: none).
  Index dense_tail() const { return pattern_->dim() - tail_; }

 private:
  using Sparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
  // The position in L's value array of entry (r, c), r >= c, in permuted coordinates.
  Index find(Index r, Index c) const;
  void map_slots();
  // The factor's columns whose rows are contiguous, and where its dense tail starts (n: none, or
  // fewer than kDenseTail columns, where the recursion alone is as quick).
  void find_dense_tail();
  static constexpr Index kDenseTail = 32;

  std::shared_ptr<const BlockPattern> pattern_;
  Sparse A_;                       // the lower triangle in layout coordinates
  std::vector<Index> a_slot_;      // per value of A_: its slot in values()
  Eigen::SimplicialLLT<Sparse, Eigen::Lower, Eigen::AMDOrdering<int>> llt_;
  std::vector<Index> perm_;        // layout column -> row of the permuted matrix
  std::vector<Index> slot_in_L_;   // per slot of values(): its position in L (once known)
  Eigen::VectorXd factored_;       // the values of the last successful factorization
  bool factored_ok_ = false;
  mutable bool inverse_ready_ = false;  // z_ holds the inverse of that factorization
  mutable Eigen::VectorXd z_;      // the inverse on L's pattern
  mutable Eigen::VectorXd acc_;    // selected inversion: a column's sums
  mutable std::vector<Index> mark_;  // selected inversion: a column's row positions
  std::vector<char> contiguous_;     // per column of L: rows j, j + 1, ... without a gap
  Index tail_ = 0;                   // first column of L's dense tail
  mutable Eigen::MatrixXd dense_a_, dense_b_;  // the tail: L22, then Z's block; L22^-1
};

}  // namespace bvi::vi
