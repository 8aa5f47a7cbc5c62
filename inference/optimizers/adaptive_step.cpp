#include "inference/optimizers/adaptive_step.hpp"

#include <cmath>

namespace bvi::vi {

void AdaptiveStep::step(Eigen::VectorXd& params, const Eigen::VectorXd& grad, long t) {
  if (s_.size() != params.size())
    s_ = grad.cwiseAbs2();  // the first step starts the running average at g^2
  else
    s_ = alpha_ * grad.cwiseAbs2() + (1 - alpha_) * s_;
  const double rho = eta_ * std::pow(static_cast<double>(t), -0.5 + 1e-16);
  params.array() += rho * grad.array() / (tau_ + s_.array().sqrt());
}

}  // namespace bvi::vi
