#pragma once
// The change of variables from the unconstrained space, column by column, with the log-Jacobian
// of each draw in the same pass (Stan's constraint transforms):
//   none:      x = u                                log J = 0
//   lower a:   x = a + e^u                          log J = u
//   upper b:   x = b - e^u                          log J = u
//   interval:  x = a + (b - a) sigmoid(u)           log J = log(b - a) + log sigmoid(u) + log sigmoid(-u)
// (positive is lower 0; unit_interval is interval (0, 1)). One block transform spans several columns:
//   cholesky_corr K: the K (K - 1) / 2 columns u become the free entries of the Cholesky factor L of
//   a K x K correlation matrix (Stan's cholesky_corr: canonical partial correlations z = tanh(u),
//   row i of L from z_i0 ... z_i,i-1 by L_i0 = z_i0, L_ij = z_ij sqrt(1 - sum_{m<j} L_im^2)), with
//   log J = sum log(1 - z^2) + sum_{i} sum_{1<=j<i} log(1 - sum_{m<j} L_im^2) / 2
// (see math/cholesky_corr.hpp for the free entries' order). Its columns carry the same transform
// with block_index 0 ... K(K-1)/2 - 1, and must be given together.
//   ordered n: n columns u become an increasing vector (Stan's ordered transform, the ordinal
//   likelihoods' cutpoints): x_1 = u_1, x_k = x_{k-1} + e^{u_k}, log J = sum_{k >= 2} u_k. Its
//   columns carry block_dim n and block_index 0 ... n - 1, and must be given together.
#include <vector>

#include "inference/ad/var.hpp"

namespace bvi::ad {

enum class Bound : unsigned char { none, lower, upper, interval, cholesky_corr, ordered };

struct ColumnTransform {
  Bound bound = Bound::none;
  double lower = 0.0, upper = 0.0;
  Index block_dim = 0;    // cholesky_corr: K; ordered: n
  Index block_index = 0;  // cholesky_corr, ordered: this column's place in the block
};

// The transforms of a cholesky_corr block of a K x K factor, one per free entry.
std::vector<ColumnTransform> cholesky_corr_block(Index K);
// The transforms of an ordered block of n columns.
std::vector<ColumnTransform> ordered_block(Index n);
// Whether a transform spans several columns (cholesky_corr, ordered): its summaries come from draws.
inline bool is_block_transform(const ColumnTransform& t) {
  return t.bound == Bound::cholesky_corr || t.bound == Bound::ordered;
}

struct Constrained {
  Var x;             // S x P constrained values
  Var log_jacobian;  // S x 1, summed over columns
};

// `transforms` has one entry per column of `u` and must outlive the tape's backward pass.
Constrained constrain(const Var& u, const std::vector<ColumnTransform>& transforms);

// The values alone (no tape): x for every column of u.
void constrain_values(const Eigen::Ref<const Eigen::MatrixXd>& u, const std::vector<ColumnTransform>& transforms,
                      Eigen::Ref<Eigen::MatrixXd> x);

}  // namespace bvi::ad
