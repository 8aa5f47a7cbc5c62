#pragma once
#include "inference/optimizers/optimizer.hpp"

namespace bvi::vi {

// params += learning_rate * grad: the seed notebook's optimizer.
class Sgd final : public Optimizer {
 public:
  explicit Sgd(double learning_rate) : lr_(learning_rate) {}
  std::string name() const override { return "sgd"; }
  void step(Eigen::VectorXd& params, const Eigen::VectorXd& grad, long) override {
    params.noalias() += lr_ * grad;
  }
  void reset() override {}
  std::vector<double> state() const override { return {}; }
  void set_state(const std::vector<double>&) override {}

 private:
  double lr_;
};

}  // namespace bvi::vi
