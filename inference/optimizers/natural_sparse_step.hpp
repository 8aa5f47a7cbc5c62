#pragma once
// The natural step of the sparse family (a precision on the model's BlockPattern) under the Monte
// Carlo method: the rule of natural_gradient.hpp with the curvature on the pattern alone. With
// E_q[log p] = E_q[log lik] (sampled) + E_q[log prior + log-Jacobian] (closed form where the model
// has it: models/expected_prior.hpp, as the exact method takes it),
//
//   K = mean_s -grad^2 log lik(zeta_s) on the pattern  (n + sum_f K_f Hessian-vector products per
//       - 2 G_prior                                     draw, forward differences of two gradients:
//                                                       hessian_probes.hpp, and crossed factors'
//                                                       pair entries from pair_curvature.hpp;
//                                                       G = dE_prior/dSigma)
//   Lambda' = (1 - rho) Lambda + rho K                  (halved until it factorizes)
//   mu' = mu + rho Lambda'^-1 (mean_s g_s + (Lambda + 2 G_prior)(mean_s zeta_s - mu) + dE_prior/dmu)
//
// (g_s the likelihood's gradients; the middle term a control variate, the likelihood's curvature
// as q knows it before the draws), whose fixed point is dense fullrank's (Lambda =
// E_q[-grad^2 log p], zero off the pattern for every theta). Without the closed-form part the whole
// log density is sampled (G_prior = 0).
//
// Why products and closed forms: the products give each entry of the Hessian at a draw exactly (to
// the difference's 1e-4 of a sd), where Stein's estimate from the gradients alone carries noise of
// order sqrt(groups / draws) in the G K n entries between the group effects and the globals; and a
// group sd's gradient sums G squared effects, sum_g r_g^2 e^{-2 tau}, whose draws' noise is 1 / sqrt(S)
// of its posterior sd at every G, where its expectation is a closed form.
//
// Per step: S (1 + n + sum K) gradients in batches; memory O(S (1 + n + sum K) P) for them (and the
// log joint's per-chunk partial sums of a batch, up to 256 x P each) plus the pattern's values;
// nothing P x P.
#include <Eigen/Core>
#include <memory>

#include "inference/exact/expected_log_density.hpp"
#include "inference/families/sparse_precision.hpp"
#include "inference/log_density.hpp"
#include "inference/sparse/hessian_probes.hpp"
#include "inference/sparse/pair_curvature.hpp"
#include "inference/sparse/sparse_factor.hpp"

namespace bvi::vi {

class SparseNaturalStep {
 public:
  // std::invalid_argument for a pattern with crossed factors (HessianProbes::why_not) without
  // `crossed`, which gives their pair entries (pair_curvature.hpp; it must outlive this).
  explicit SparseNaturalStep(std::shared_ptr<const BlockPattern> pattern, PairCurvature* crossed = nullptr);

  const BlockPattern& pattern() const { return *pattern_; }

  // One update of q from the step's draws zeta (S x P, = q.transform(eps)). `sampled` is the
  // sampled part of log p: the whole log density, whose gradients at zeta are `grad_logp` (S x P),
  // when `exact_part` is null; else the likelihood alone (its gradients at zeta are evaluated here;
  // grad_logp is not read), `exact_part` the prior's closed form. `bounds`:
  // LogDensity::max_mean_step (empty: none). Without `control_variate` the mean's step is the plain
  // Newton step on the draws' mean gradient.
  void step(SparsePrecision& q, const Eigen::MatrixXd& zeta, const Eigen::MatrixXd& grad_logp, double rho,
            LogDensity& sampled, ExpectedLogDensity* exact_part, const Eigen::VectorXd& bounds,
            bool control_variate = true);

 private:
  std::shared_ptr<const BlockPattern> pattern_;
  PairCurvature* crossed_;
  HessianProbes probes_;
  SparseFactor next_;                  // the factorization of Lambda'
  SparseFactor floor_check_;           // of Lambda' - Lambda / 4: positive definite or the step is halved
  // Reused across steps: the probes' draws and gradients, the summed products, the curvature.
  Eigen::MatrixXd theta_, grad_, products_, used_;
  Eigen::VectorXd lp_, curvature_, gradient_sum_, draw_sum_, floor_;
  Eigen::RowVectorXd base_;
  ExpectationGradient exact_gradient_;
};

}  // namespace bvi::vi
