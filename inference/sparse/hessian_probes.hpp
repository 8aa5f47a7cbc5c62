#pragma once
// The Hessian of a multilevel log density on its BlockPattern from a few Hessian-vector products,
// for the Monte Carlo method's sparse family: the natural step needs E_q[-grad^2 log p] on the
// pattern, and a Stein estimate (gradients times draws) of its G K n cross entries between the
// group effects and the globals is noise of order sqrt(G / draws) against an O(1) signal, where the
// products give each entry exactly at every draw.
//
// The probes (Curtis, Powell and Reid 1974, by blocks): one per global coordinate (e_j), and one per
// factor and effect k (the sum of e over every group's effect k). Two groups of one factor share no
// row and no prior term, so in the product with a factor's probe, row (g, a) of that factor is the
// within entry H[(g, a), (g, k)] alone; the global probes give the global block and every cross
// entry; a pair entry of two factors is read from the coarser factor's probe at the finer factor's
// row, which holds it alone when each level of the finer factor shares rows with one level of the
// coarser (nested factors, and a factor with itself). Crossed factors (a level sharing rows with
// several levels of the other) have pair entries that are sums in every such product: they come
// from elsewhere (a PairCurvature, pair_curvature.hpp) or the probes are refused.
//
// n + sum_f K_f products per draw, whatever the number of groups; each is one more gradient.
#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "inference/sparse/block_pattern.hpp"

namespace bvi::vi {

class HessianProbes {
 public:
  // "" when every pair of the pattern's factors is nested, else why not (the factors by index).
  static std::string why_not(const BlockPattern& pattern);

  // The pairs (indexes into pattern.pairs()) of crossed factors: their entries no product holds.
  static std::vector<std::size_t> crossed_pairs(const BlockPattern& pattern);

  // std::invalid_argument when why_not(*pattern) is not "", unless `crossed_supplied`: then
  // assemble() leaves the crossed pairs' entries 0 for the caller to fill.
  explicit HessianProbes(std::shared_ptr<const BlockPattern> pattern, bool crossed_supplied = false);

  Index count() const { return static_cast<Index>(columns_.size()); }
  // The layout columns probe c sums.
  const std::vector<Index>& columns(Index c) const { return columns_[static_cast<std::size_t>(c)]; }

  // The symmetric matrix on the pattern from the products: row c of `products` (count() x P) is
  // H (sum_{j in columns(c)} step_j e_j), written as values() of the pattern (both orders of the
  // global and within blocks, averaged where two products give an entry; 0 on the crossed pairs').
  void assemble(const Eigen::Ref<const Eigen::MatrixXd>& products, const Eigen::VectorXd& step,
                Eigen::VectorXd& values) const;

 private:
  // Whether H[i, k] is product probe_[k]'s row i alone.
  bool readable(Index i, Index k) const;

  std::shared_ptr<const BlockPattern> pattern_;
  std::vector<std::vector<Index>> columns_;
  std::vector<Index> probe_;  // per layout column: its probe
  std::vector<int> factor_;   // per layout column: its factor, or -1 for a global
  // unique_partner_[f2][f1]: each level of factor f2 shares rows with one level of f1 at most.
  std::vector<std::vector<char>> unique_partner_;
  bool crossed_supplied_ = false;
};

}  // namespace bvi::vi
