#pragma once
// Natural-gradient variational inference for the Gaussian families: the improved Bayesian
// learning rule of Lin, Schmidt & Khan (2020), with the expected Hessian estimated from the
// same reparameterized gradient draws by Price's theorem (no second derivatives needed):
//
//   E_q[grad^2 log p] = E_q[grad log p (z - mu)^T] Sigma^-1 = E[g eps^T] C^-1,   z = mu + C eps,
//
//   K = -sym(Cov_s(g_s, eps_s) C^-1)                 (curvature estimate; precision at the optimum)
//   G = K - Lambda
//   Lambda' = Lambda + rho G + rho^2/2 G Lambda^-1 G  (stays positive definite for any G)
//   mu' = mu + rho Lambda'^-1 mean_s g_s
//
// Its fixed point is the stationary point of the ELBO (E_q[grad log p] = 0 and
// Sigma^-1 = -E_q[grad^2 log p]; for meanfield the diagonal of it), and a step of rho = 1 on a
// Gaussian target lands on the optimum. Steps scale with the posterior itself, so one setting
// works whether the posterior sds are 1 or 0.001, where Adam's steps (in parameter units) need
// tuning per problem. For meanfield every estimate is per coordinate, O(S P) per step.
#include <Eigen/Core>
#include <memory>
#include <vector>

#include "inference/exact/expected_log_density.hpp"
#include "inference/families/family.hpp"
#include "inference/log_density.hpp"

namespace bvi::vi {

struct NaturalGradientSchedule {
  double rho0 = 0.5;      // first step size
  double rho_min = 0.05;  // the step size it decays to
  double half_life = 50;  // rho_t = rho_min + (rho0 - rho_min) 2^(-t / half_life)
  double at(long t) const;
};

class SparseNaturalStep;
class PairCurvature;

class NaturalGradient {
 public:
  explicit NaturalGradient(NaturalGradientSchedule schedule);
  ~NaturalGradient();

  // The sparse family's parts of log p (natural_sparse_step.hpp): the sampled one (the likelihood
  // alone) and the prior's closed form. Unset, the step samples the density it is given.
  // `crossed`: the entries between crossed factors' effects (pair_curvature.hpp), or null when
  // the pattern has none.
  void set_sparse_parts(LogDensity* sampled, ExpectedLogDensity* exact_part, PairCurvature* crossed = nullptr) {
    sparse_sampled_ = sampled;
    sparse_exact_ = exact_part;
    sparse_crossed_ = crossed;
  }

  // Per coordinate, the largest move of q's mean in one step (LogDensity::max_mean_step); empty:
  // only the trust region bounds it.
  void set_max_mean_step(Eigen::VectorXd bounds) { max_mean_step_ = std::move(bounds); }

  // One update of q from the draws of a step: eps (S x P) and the gradients of log p at
  // q.transform(eps) (S x P). `t` counts from 1. Meanfield's mean step also applies the Hessian
  // of `density` at q's mean to a few vectors (differences of two gradients each), when given;
  // the sparse family's curvature is the Hessian's on its pattern at the draws
  // (natural_sparse_step.hpp), so it needs `density`.
  // `zeta`: q.transform(eps) where the caller has it (the estimator's draws); the sparse step
  // reads it, and otherwise transforms eps itself.
  void step(Family& q, const Eigen::MatrixXd& eps, const Eigen::MatrixXd& grad_logp, long t,
            LogDensity* density = nullptr, const Eigen::MatrixXd* zeta = nullptr);

  // The step size of step t.
  double rho(long t) const { return schedule_.at(t); }

  std::vector<double> state() const;
  void set_state(const std::vector<double>& state);

 private:
  NaturalGradientSchedule schedule_;
  Eigen::VectorXd max_mean_step_;
  // Meanfield: the averaged diagonal curvature of the mean's Newton step (P values: nothing
  // P x P in the meanfield path or its checkpoint state). Fullrank keeps no state.
  Eigen::VectorXd diagonal_curvature_;
  // The sparse family's step (its probes and factorization, made at its first step).
  std::unique_ptr<SparseNaturalStep> sparse_;
  LogDensity* sparse_sampled_ = nullptr;
  ExpectedLogDensity* sparse_exact_ = nullptr;
  PairCurvature* sparse_crossed_ = nullptr;
};

}  // namespace bvi::vi
