#pragma once
// A stochastic gradient-ascent rule on the flat vector of variational parameters.
#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "models/spec/config.hpp"

namespace bvi::vi {

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual std::string name() const = 0;
  // One ascent step: params += (step rule)(grad). `t` is the iteration, counting from 1.
  virtual void step(Eigen::VectorXd& params, const Eigen::VectorXd& grad, long t) = 0;
  // Forget the history (moment estimates, running squared gradients).
  virtual void reset() = 0;
  // The whole state as numbers, for checkpoints; set_state(state()) is the identity.
  virtual std::vector<double> state() const = 0;
  virtual void set_state(const std::vector<double>& state) = 0;
};

// Builds the optimizer the config names. For `adaptive`, eta must already be known (given, or
// found by adapt_eta) and is passed in.
std::unique_ptr<Optimizer> make_optimizer(const spec::OptimizerConfig& config, double adapted_eta = 0.0);

}  // namespace bvi::vi
