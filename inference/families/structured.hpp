#pragma once
// Meanfield with each group effect tied to its scale: coordinate j with a parent p (a group
// effect r_F[g, k] and its group's log sd, log sd_F[k]) is
//   zeta_j = mu_j + b_j (zeta_p - mu_p) + sigma_j eps_j,
// every other coordinate independent as in meanfield. params() = [mu (P), omega (P), b (P)]
// with omega = log sigma (sigma_j is j's sd given its parent) and b_j = 0 where j has no parent.
// The effects' dependence on their sd is what a centred hierarchical posterior has most of
// (the funnel: small sd, effects near 0) and what meanfield drops, so meanfield shrinks the sds
// towards 0 when groups have few rows; this family keeps it at meanfield's O(P) cost. Parents
// are roots (no parent of their own), so C in zeta = mu + C eps is triangular up to the order
// of the coordinates and log |det C| = sum omega.
#include <vector>

#include "inference/families/family.hpp"

namespace bvi::vi {

class Structured final : public Family {
 public:
  // parent[j]: j's parent, or -1.
  Structured(Index dim, std::vector<Index> parent);
  std::string name() const override { return "structured"; }
  std::unique_ptr<Family> clone() const override { return std::make_unique<Structured>(*this); }

  const std::vector<Index>& parent() const { return parent_; }
  auto omega() const { return params_.segment(dim_, dim_); }
  auto omega() { return params_.segment(dim_, dim_); }
  auto b() const { return params_.tail(dim_); }
  auto b() { return params_.tail(dim_); }
  // sigma_j = exp(omega_j) with std::exp, element by element (as MeanField::marginal_sd).
  Eigen::VectorXd conditional_sd() const;

  void transform(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                 Eigen::Ref<Eigen::MatrixXd> zeta) const override;
  void elbo_gradient(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                     const Eigen::Ref<const Eigen::MatrixXd>& grad_logp,
                     Eigen::VectorXd& grad) const override;
  double log_det_scale() const override { return omega().sum(); }
  // sqrt(sigma_j^2 + b_j^2 sigma_p^2).
  Eigen::VectorXd marginal_sd() const override;
  Eigen::MatrixXd covariance() const override;
  void set_initial_scale(double s) override;

 private:
  std::vector<Index> parent_;
};

}  // namespace bvi::vi
