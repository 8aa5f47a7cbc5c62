#pragma once
// Lognormal regression for positive responses (costs, durations, concentrations):
//   log y_n ~ Normal(alpha + x_n . beta, sigma),
// as scipy.stats.lognorm(s = sigma, scale = exp(eta)) (brms's lognormal, Stan's lognormal): the
// normal density of log y with the Jacobian -log y, so log p(y) is a density in y and the ELBO is
// comparable with other likelihoods' on the same y. sigma is a positive parameter of the model
// (likelihood_needs("lognormal").parameters), sampled as u = log sigma. y must be > 0.
#include "models/likelihoods/likelihood.hpp"
#include "models/likelihoods/linear_predictor.hpp"

namespace bvi::models {

class Lognormal final : public Likelihood {
 public:
  Lognormal(const ParameterLayout& layout, bool fused);
  std::string name() const override { return "lognormal"; }
  ResponseKind response_kind() const override { return ResponseKind::positive; }
  std::string check_response(double y) const override;
  // -log y per row (the Jacobian; lognormal_glm also reads log y from it).
  bool log_constants(const double* y, const double* trials, Index rows, double* out) const override;
  double initial_eta(const ResponseMoments& m) const override { return m.log_mean; }
  ad::Var log_lik(const ad::Var& params, const DataBlock<double>& block) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<float>& block) const override;

  // Closed form: the normal likelihood's on log y, minus log y.
  void expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                        quadrature::ExpectationScratch& scratch) const override;
  Index scale_column() const override { return sigma_offset_; }
  bool scale_on_eta() const override { return true; }
  double initial_scale(double y_mean, double y_var) const override;

 private:
  template <class T>
  ad::Var fused(const ad::Var& params, const DataBlock<T>& block) const;
  template <class T>
  ad::Var composed(const ad::Var& params, const DataBlock<T>& block) const;

  LinearPredictor eta_;
  Index sigma_offset_ = 0;
  bool fused_;
};

}  // namespace bvi::models
