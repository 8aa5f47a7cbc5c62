#pragma once
// The entries of the log likelihood's Hessian between two crossed grouping factors' effects, which
// no Hessian-vector product holds alone (hessian_probes.hpp): a product that moves every level of
// one factor sums, in each level of the other, its entries with all the levels it shares rows with.
// For a likelihood whose row n depends on the group effects through one linear predictor eta_n,
//   d^2 log lik / d r_(f1, g1, e) d r_(f2, g2, k) = sum over the rows of both levels of
//                                                   l_n''(eta_n) z_(f1, e, n) z_(f2, k, n),
// so a model that can give every row's l_n'' at a draw gives these entries from one pass over the
// rows (models/crossed_curvature.hpp), whatever the number of levels each level shares rows with.
#include <Eigen/Core>

#include "inference/sparse/block_pattern.hpp"

namespace bvi::vi {

class PairCurvature {
 public:
  virtual ~PairCurvature() = default;
  // Adds, for every level pair of a crossed factor pair (HessianProbes::crossed_pairs) and every
  // effect pair, the sum over the S draws in `theta` (S x P, unconstrained) of the log likelihood's
  // Hessian entry there to its slot of `values` (the pattern's layout); other slots are left.
  virtual void add(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::VectorXd& values) = 0;
};

}  // namespace bvi::vi
