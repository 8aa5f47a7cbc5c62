#pragma once
#include "inference/optimizers/optimizer.hpp"

namespace bvi::vi {

// Stan's ADVI step-size sequence (Kucukelbir et al. 2017, eq. 10):
//   s_1 = g_1^2,  s_k = alpha g_k^2 + (1 - alpha) s_(k-1),
//   params += eta k^(-1/2 + 1e-16) g_k / (tau + sqrt(s_k)).
class AdaptiveStep final : public Optimizer {
 public:
  AdaptiveStep(double eta, double tau, double alpha) : eta_(eta), tau_(tau), alpha_(alpha) {}
  std::string name() const override { return "adaptive"; }
  void step(Eigen::VectorXd& params, const Eigen::VectorXd& grad, long t) override;
  void reset() override { s_.resize(0); }
  std::vector<double> state() const override { return {s_.data(), s_.data() + s_.size()}; }
  void set_state(const std::vector<double>& state) override {
    s_ = Eigen::Map<const Eigen::VectorXd>(state.data(), static_cast<Eigen::Index>(state.size()));
  }
  double eta() const { return eta_; }

 private:
  double eta_, tau_, alpha_;
  Eigen::VectorXd s_;
};

}  // namespace bvi::vi
