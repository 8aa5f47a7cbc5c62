#pragma once
#include "inference/optimizers/optimizer.hpp"

namespace bvi::vi {

// Adam (Kingma & Ba 2015), ascending:
//   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2,
//   params += lr_t (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps),  lr_t = lr / sqrt(1 + decay t).
class Adam final : public Optimizer {
 public:
  Adam(double learning_rate, double decay, double beta1, double beta2, double epsilon)
      : lr_(learning_rate), decay_(decay), b1_(beta1), b2_(beta2), eps_(epsilon) {}
  std::string name() const override { return "adam"; }
  void step(Eigen::VectorXd& params, const Eigen::VectorXd& grad, long t) override;
  void reset() override {
    m_.resize(0);
    v_.resize(0);
  }
  std::vector<double> state() const override;
  void set_state(const std::vector<double>& state) override;

 private:
  double lr_, decay_, b1_, b2_, eps_;
  Eigen::VectorXd m_, v_;
};

}  // namespace bvi::vi
