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

namespace bvi::vi {

using Index = Eigen::Index;

// q = N(mean, Sigma): meanfield, Sigma = diag(sd^2); or fullrank, Sigma = L L^T with L lower
// triangular with a positive diagonal.
struct GaussianQ {
  Eigen::VectorXd mean;
  Eigen::VectorXd sd;    // meanfield
  Eigen::MatrixXd chol;  // fullrank (L)
  bool dense = false;

  Index dim() const { return mean.size(); }
  // Sigma_jj.
  double var(Index j) const { return dense ? chol.row(j).head(j + 1).squaredNorm() : sd[j] * sd[j]; }
  // H[q] = P/2 (1 + log 2 pi) + log |det L|, every constant included.
  double entropy() const;
};

struct ExpectationGradient {
  double value = 0.0;
  Eigen::VectorXd d_mean;  // dE/dmean (P)
  Eigen::VectorXd d_var;   // meanfield: G_jj (P)
  Eigen::MatrixXd d_cov;   // fullrank: G (P x P, symmetric)

  void reset(Index P, bool dense);
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
  // Passes over the data so far.
  virtual long passes() const = 0;
  // The standard error of the value's Monte Carlo part (prior terms with parameters as
  // hyperparameters are sample averages over fixed draws), 0 when everything is exact.
  virtual double value_se() const { return 0.0; }
};

}  // namespace bvi::vi
