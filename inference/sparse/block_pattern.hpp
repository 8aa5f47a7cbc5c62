#pragma once
// The non-zero pattern of a multilevel model's posterior precision, known from the design before
// any fitting (the Hessian of the log joint is zero off it for every theta), stored in blocks:
//   global   the coordinates that are no group effect (alpha, beta, the likelihood's scale, every
//            factor's sds and correlations, ...): n x n, every pair;
//   within   each group's K effects among themselves: K x K per group;
//   cross    each group effect with every global: K x n per group;
//   pairs    for two factors, each pair of levels that share a row (crossed or nested factors):
//            K1 x K2 per pair.
// A matrix on the pattern (a precision, a covariance's entries there, a gradient dE/dSigma) is one
// vector of values() in this layout. The global and within blocks are stored whole (both (i, k) and
// (k, i)); cross and pair entries once. The cost grows with the number of groups times K (K + n),
// never with its square.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace bvi::vi {

using Index = Eigen::Index;

class BlockPattern {
 public:
  struct Factor {
    Index offset = 0;   // the layout column of effect (group 0, effect 0); effect k of group g at offset + g K + k
    Index groups = 0, effects = 0;
  };
  // The level pairs of factors f1 < f2 that share at least one row, sorted, unique.
  struct Pair {
    int f1 = 0, f2 = 0;
    std::vector<std::pair<std::int32_t, std::int32_t>> levels;
  };

  // dim: the parameters; factors: each factor's effects (level-major blocks of the layout);
  // pairs: the level pairs that share rows, for each two factors that have any.
  BlockPattern(Index dim, std::vector<Factor> factors, std::vector<Pair> pairs);

  Index dim() const { return dim_; }
  Index size() const { return size_; }
  const std::vector<Index>& globals() const { return globals_; }
  Index n_global() const { return static_cast<Index>(globals_.size()); }
  const std::vector<Factor>& factors() const { return factors_; }
  const std::vector<Pair>& pairs() const { return pairs_; }

  // Where blocks start in values(): the global block (n x n, column-major); group g of factor f's
  // K x K block (row-major), its K x n cross block (row k: effect k with every global, in the
  // order of globals()); the K1 x K2 block (row-major) of pair p's level pair number `at`.
  Index global_block() const { return 0; }
  Index within_block(std::size_t f, Index g) const { return within_[f] + g * factors_[f].effects * factors_[f].effects; }
  Index cross_block(std::size_t f, Index g) const { return cross_[f] + g * factors_[f].effects * n_global(); }
  Index pair_block(std::size_t p, Index at) const;
  // The position in pair p's list of the level pair (g1, g2), or -1.
  Index find_pair(std::size_t p, std::int32_t g1, std::int32_t g2) const;

  // The slot of entry (i, k) of a symmetric matrix in values(), or -1 when it is off the pattern.
  Index slot(Index i, Index k) const;
  bool contains(Index i, Index k) const { return slot(i, k) >= 0; }
  // Adds g to the ordered pair (i, k) of a gradient G with dE = tr(G dSigma), kept symmetric:
  // g / 2 on (i, k) and on (k, i) (once where both are one slot), g on a diagonal entry.
  void add(Eigen::VectorXd& values, Index i, Index k, double g) const;
  // Every stored entry as (row, column, slot) with row >= column in layout coordinates, once.
  struct Entry {
    Index row, col, slot;
  };
  std::vector<Entry> lower_entries() const;
  // Calls f(i, k, slot) for every slot of values() (a whole block's (i, k) and (k, i) each once),
  // in a fixed order, allocating nothing.
  template <class F>
  void for_each_slot(F&& f) const;
  // The diagonal's slots, per layout column.
  const std::vector<Index>& diagonal() const { return diagonal_; }
  // The identity scaled by d on the pattern (a precision of independent coordinates).
  Eigen::VectorXd diagonal_matrix(const Eigen::VectorXd& d) const;
  // y = A x for the symmetric matrix A whose values() are `values`, allocating nothing.
  void multiply(const Eigen::VectorXd& values, const Eigen::Ref<const Eigen::VectorXd>& x,
                Eigen::Ref<Eigen::VectorXd> y) const;

 private:
  // What a layout column is: a global (its index in globals_) or effect k of group g of factor f.
  struct Role {
    int factor = -1;  // -1: global
    Index index = 0;  // the global's index, or g K + k
  };
  Index dim_;
  std::vector<Factor> factors_;
  std::vector<Pair> pairs_;
  std::vector<Index> globals_;
  std::vector<Role> role_;
  std::vector<Index> within_, cross_, pair_offset_;
  std::vector<Index> diagonal_;
  Index size_ = 0;
};

template <class F>
void BlockPattern::for_each_slot(F&& f) const {
  const Index n = n_global();
  for (Index c = 0; c < n; ++c)
    for (Index r = 0; r < n; ++r) f(globals_[static_cast<std::size_t>(r)], globals_[static_cast<std::size_t>(c)], r + c * n);
  for (std::size_t fi = 0; fi < factors_.size(); ++fi) {
    const Factor& fac = factors_[fi];
    const Index K = fac.effects;
    for (Index g = 0; g < fac.groups; ++g) {
      const Index first = fac.offset + g * K, within = within_block(fi, g), cross = cross_block(fi, g);
      for (Index a = 0; a < K; ++a) {
        for (Index b = 0; b < K; ++b) f(first + a, first + b, within + a * K + b);
        for (Index j = 0; j < n; ++j) f(first + a, globals_[static_cast<std::size_t>(j)], cross + a * n + j);
      }
    }
  }
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    const Pair& pr = pairs_[p];
    const Factor &f1 = factors_[static_cast<std::size_t>(pr.f1)], &f2 = factors_[static_cast<std::size_t>(pr.f2)];
    for (std::size_t at = 0; at < pr.levels.size(); ++at) {
      const Index block = pair_block(p, static_cast<Index>(at));
      for (Index a = 0; a < f1.effects; ++a)
        for (Index b = 0; b < f2.effects; ++b)
          f(f1.offset + pr.levels[at].first * f1.effects + a, f2.offset + pr.levels[at].second * f2.effects + b,
            block + a * f2.effects + b);
    }
  }
}

}  // namespace bvi::vi
