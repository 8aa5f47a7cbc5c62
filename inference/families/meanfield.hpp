#pragma once
// Independent normals: zeta = mu + exp(omega) .* eps. params() = [mu (P), omega (P)], with
// omega = log sigma unconstrained so the optimizer cannot make a scale negative.
#include <cmath>

#include "inference/families/family.hpp"

namespace bvi::vi {

class MeanField final : public Family {
 public:
  explicit MeanField(Index dim) : Family(dim, 2 * dim) {}
  std::string name() const override { return "meanfield"; }
  std::unique_ptr<Family> clone() const override { return std::make_unique<MeanField>(*this); }

  auto omega() const { return params_.tail(dim_); }
  auto omega() { return params_.tail(dim_); }

  void transform(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                 Eigen::Ref<Eigen::MatrixXd> zeta) const override;
  // d/dmu = mean_s g_s;  d/domega = mean_s (g_s .* eps_s) .* sigma + 1 (the entropy's share).
  void elbo_gradient(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                     const Eigen::Ref<const Eigen::MatrixXd>& grad_logp,
                     Eigen::VectorXd& grad) const override;
  double log_det_scale() const override { return omega().sum(); }
  // exp of each log sd with std::exp, element by element (not Eigen's packet exp, whose result
  // can depend on a vector's alignment): the exact method round-trips q through it.
  Eigen::VectorXd marginal_sd() const override {
    Eigen::VectorXd sd(dim_);
    for (Index j = 0; j < dim_; ++j) sd[j] = std::exp(params_[dim_ + j]);
    return sd;
  }
  void set_initial_scale(double s) override { omega().setConstant(std::log(s)); }
  Eigen::MatrixXd covariance() const override { return marginal_sd().array().square().matrix().asDiagonal(); }
};

}  // namespace bvi::vi
