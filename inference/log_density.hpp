#pragma once
// What inference needs from a model: the batched log density of S draws on the unconstrained
// scale and its gradient. models::LogJoint implements it over data sharded across threads and
// ranks; tests implement it with closed forms.
#include <Eigen/Core>

namespace bvi::vi {

using Index = Eigen::Index;

class LogDensity {
 public:
  virtual ~LogDensity() = default;
  virtual Index dim() const = 0;
  // lp(s) = log p(data, theta_s) + log-Jacobian, for the S rows of theta (S x P); with `grad`,
  // row s of the S x P result is d lp(s) / d theta_s.
  virtual void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                           Eigen::MatrixXd* grad) = 0;
};

}  // namespace bvi::vi
