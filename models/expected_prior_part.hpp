#pragma once
// The prior and Jacobian part of E_q[log p] alone (ExpectedPrior, no data), as a
// vi::ExpectedLogDensity: what the Monte Carlo method's sparse step takes in closed form while it
// samples the likelihood (inference/optimizers/natural_sparse_step.hpp).
#include <cstdint>

#include "inference/exact/expected_log_density.hpp"
#include "models/expected_prior.hpp"

namespace bvi::models {

class ExpectedPriorPart final : public vi::ExpectedLogDensity {
 public:
  // `left_out`: the prior terms sampled with the likelihood instead (ExpectedPrior).
  ExpectedPriorPart(const Model& model, std::uint64_t seed, const std::vector<std::size_t>& left_out)
      : model_(model), prior_(model, seed, 2000, left_out) {}

  Index dim() const override { return model_.dim(); }
  double evaluate(const vi::GaussianQ& q, vi::ExpectationGradient* grad) override {
    if (grad) grad->reset_for(q);
    return prior_.evaluate(q, grad);
  }
  void hessian_times(const Eigen::VectorXd& d, Eigen::VectorXd& out) override {
    out.setZero(d.size());
    prior_.hessian_times(d, out);
  }
  long passes() const override { return 0; }
  double value_se() const override { return prior_.value_se(); }
  const ExpectedPrior& prior() const { return prior_; }

 private:
  const Model& model_;
  ExpectedPrior prior_;
};

}  // namespace bvi::models
