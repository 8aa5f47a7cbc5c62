#pragma once
// Beta regression for proportions strictly inside (0, 1) (rates, shares, fractions of a whole):
//   y_n ~ Beta(mu_n phi, (1 - mu_n) phi),  mu_n = expit(alpha + x_n . beta),  Var y_n = mu_n (1 - mu_n) / (1
//   + phi),
// as scipy.stats.beta(mu phi, (1 - mu) phi) (brms's Beta family, rstanarm's stan_betareg, Stan's
// beta_proportion), with the precision phi a positive parameter of the model named `phi`
// (brms's name), sampled as u = log phi. y must be in (0, 1): 0 and 1 are exit 65.
#include "models/likelihoods/likelihood.hpp"
#include "models/likelihoods/linear_predictor.hpp"

namespace bvi::models {

class BetaLogit final : public Likelihood {
 public:
  BetaLogit(const ParameterLayout& layout, bool fused);
  std::string name() const override { return "beta_logit"; }
  ResponseKind response_kind() const override { return ResponseKind::real; }
  std::string check_response(double y) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<double>& block) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<float>& block) const override;

  // A 2-D Gauss-Hermite integral over (eta, u = log phi) per row (beta_logit_expectation.cpp).
  void expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                        quadrature::ExpectationScratch& scratch) const override;
  Index scale_column() const override { return phi_offset_; }
  double initial_scale(double y_mean, double y_var) const override;

 private:
  template <class T>
  ad::Var fused(const ad::Var& params, const DataBlock<T>& block) const;
  template <class T>
  ad::Var composed(const ad::Var& params, const DataBlock<T>& block) const;

  LinearPredictor eta_;
  Index phi_offset_ = 0;
  bool fused_;
};

}  // namespace bvi::models
