#pragma once
// What inference needs from a model: the batched log density of S draws on the unconstrained
// scale and its gradient. models::LogJoint implements it over data sharded across threads and
// ranks; tests implement it with closed forms.
#include <Eigen/Core>
#include <vector>

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
  // Per coordinate, the coordinate of the log sd its prior scales it by (a group effect's), or -1;
  // empty when there are none. The start gives such a coordinate its group's sd as q's scale.
  virtual std::vector<Index> scale_columns() const { return {}; }
  // Per coordinate, the largest move of q's mean in one step (1 on a log or logit scale, infinity
  // elsewhere); empty: unbounded.
  virtual Eigen::VectorXd max_mean_step() const { return {}; }
  // Where the natural optimizer starts q's mean (P values), or empty: the origin. Collective under
  // MPI where the density's data are sharded.
  virtual Eigen::VectorXd initial_mean() { return {}; }
};

}  // namespace bvi::vi
