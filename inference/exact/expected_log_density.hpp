#pragma once
// What the exact (deterministic) method needs from a model: the expectation of the log density
// under a Gaussian q on the unconstrained space, E_q[log p(data, zeta) + log-Jacobian], with its
// gradient in q's mean and covariance, computed without Monte Carlo noise (closed forms and
// one-dimensional quadrature; models::ExpectedLogJoint implements it).
//
// Conventions: dE/dSigma is the symmetric matrix G with dE = tr(G dSigma) for a symmetric
// perturbation. By Price's theorem the Hessian of E in the mean is 2 G, and the ELBO
// E + H[q] is stationary exactly where mean-gradient is zero and Sigma^-1 = -2 G (for meanfield,
// on the diagonal): the natural-gradient fixed point the optimizer iterates.
#include <Eigen/Core>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "inference/sparse/sparse_factor.hpp"

namespace bvi::vi {

using Index = Eigen::Index;

// q = N(mean, Sigma): meanfield, Sigma = diag(sd^2); or fullrank, Sigma = L L^T with L lower
// triangular with a positive diagonal; or structured (meanfield with `b` set): coordinate j with
// a parent p is zeta_j = mean_j + b_j (zeta_p - mean_p) + sd_j eps_j, sd_j its sd given the
// parent (families/structured.hpp). A parent has no parent; two coordinates with the same
// parent never enter one row or one prior term together, so only Sigma_jj and Sigma_jp matter.
// Or sparse (`factor` set): the precision Lambda on a BlockPattern (`prec`), with Sigma's entries
// on the same pattern (`sigma`, by selected inversion); the density never reads Sigma off it.
struct GaussianQ {
  Eigen::VectorXd mean;
  Eigen::VectorXd sd;    // meanfield (structured: given the parent)
  Eigen::MatrixXd chol;  // fullrank (L)
  bool dense = false;
  Eigen::VectorXd b;                        // structured: empty for meanfield
  const std::vector<Index>* parent = nullptr;  // structured: each coordinate's parent or -1
  std::shared_ptr<SparseFactor> factor;        // sparse: the pattern, and a workspace shared by copies
  Eigen::VectorXd prec, sigma;                 // sparse: Lambda and Sigma on the pattern
  double log_det_prec = 0.0;                   // sparse: log det Lambda

  Index dim() const { return mean.size(); }
  bool structured() const { return b.size() != 0; }
  bool sparse() const { return factor != nullptr; }
  const BlockPattern& pattern() const { return factor->pattern(); }
  // Sparse: sets Lambda (then Sigma on the pattern and log det); false when it is not positive
  // definite (q unchanged).
  bool set_precision(Eigen::VectorXd lambda);
  Index parent_of(Index j) const { return structured() ? (*parent)[static_cast<std::size_t>(j)] : -1; }
  // Sigma_jj.
  double var(Index j) const {
    if (dense) return chol.row(j).head(j + 1).squaredNorm();
    if (sparse()) return sigma[pattern().diagonal()[static_cast<std::size_t>(j)]];
    const Index p = parent_of(j);
    return p < 0 ? sd[j] * sd[j] : sd[j] * sd[j] + b[j] * b[j] * sd[p] * sd[p];
  }
  // Sigma_ik.
  double cov(Index i, Index k) const {
    if (i == k) return var(i);
    if (sparse()) {
      const Index s = pattern().slot(i, k);
      if (s < 0) throw std::logic_error("GaussianQ: a covariance off the sparse pattern");
      return sigma[s];
    }
    if (dense) {
      const Index n = std::min(i, k) + 1;
      return chol.row(i).head(n).dot(chol.row(k).head(n));
    }
    if (!structured()) return 0.0;
    const Index pi = parent_of(i), pk = parent_of(k);
    if (pi == k) return b[i] * sd[k] * sd[k];
    if (pk == i) return b[k] * sd[i] * sd[i];
    if (pi >= 0 && pi == pk) return b[i] * b[k] * sd[pi] * sd[pi];
    return 0.0;
  }
  // H[q] = P/2 (1 + log 2 pi) + log |det L|, every constant included.
  double entropy() const;
};

struct ExpectationGradient {
  double value = 0.0;
  Eigen::VectorXd d_mean;  // dE/dmean (P)
  Eigen::VectorXd d_var;   // meanfield: G_jj (P)
  Eigen::VectorXd d_parent;  // structured: G_jp for j's parent p (the ordered pair; 0 without one)
  Eigen::MatrixXd d_cov;   // fullrank: G (P x P, symmetric)
  Eigen::VectorXd d_sparse;  // sparse: G on the pattern (BlockPattern::add's convention)

  void reset(Index P, bool dense, bool structured = false);
  // Sparse: meanfield's d_var (which the prior fills for the diagonal) and G on the pattern.
  void reset_sparse(const BlockPattern& pattern);
  // Zeroed in the shape q's family takes (reset_sparse or reset).
  void reset_for(const GaussianQ& q) {
    if (q.sparse())
      reset_sparse(q.pattern());
    else
      reset(q.dim(), q.dense, q.structured());
  }
};

class ExpectedLogDensity {
 public:
  virtual ~ExpectedLogDensity() = default;
  virtual Index dim() const = 0;
  // Returns E; with `grad`, also fills it (value included). A non-finite E is returned as it
  // is: the optimizer treats such a point as rejected.
  virtual double evaluate(const GaussianQ& q, ExpectationGradient* grad) = 0;
  // Meanfield only: out = 2 G d with G the full dE/dSigma at the point of the last evaluate()
  // with a gradient (the Hessian of E in the mean applied to d), without forming G.
  virtual void hessian_times(const Eigen::VectorXd& d, Eigen::VectorXd& out) = 0;
  // The coordinates the structured family may tie to a parent: parent[j] (-1: none). Empty:
  // none (the structured family is then meanfield).
  virtual std::vector<Index> parents() const { return {}; }
  // For each coordinate, the log-scale coordinate whose exp(mean) is a good starting sd for it (a
  // group effect's group sd, correlated factors included), or -1. Empty: none.
  virtual std::vector<Index> scale_columns() const { return parents(); }
  // The pattern of the sparse family's precision (the same on every rank), or null where the
  // density has none.
  virtual std::shared_ptr<const BlockPattern> sparse_pattern() { return nullptr; }
  // Passes over the data so far.
  virtual long passes() const = 0;
  // The standard error of the value's Monte Carlo part (prior terms with parameters as
  // hyperparameters are sample averages over fixed draws), 0 when everything is exact.
  virtual double value_se() const { return 0.0; }
};

}  // namespace bvi::vi
