#pragma once
// Negative binomial (NB2) log-linear regression for overdispersed counts:
//   y_n ~ NegBinomial2(mu_n = exp(alpha + x_n . beta + offset_n), phi),  Var y_n = mu_n + mu_n^2 / phi,
// as scipy.stats.nbinom(n = phi, p = phi / (phi + mu)) (brms's negbinomial, Stan's
// neg_binomial_2_log), with offset_n = data.offset + log(data.exposure) as poisson_log has it, and
// the shape phi a positive parameter of the model (likelihood_needs(...).parameters), sampled as
// u = log phi. Large phi is the Poisson limit.
#include "models/likelihoods/likelihood.hpp"
#include "models/likelihoods/linear_predictor.hpp"

namespace bvi::models {

class NegativeBinomialLog final : public Likelihood {
 public:
  NegativeBinomialLog(const ParameterLayout& layout, bool fused);
  std::string name() const override { return "negative_binomial_log"; }
  ResponseKind response_kind() const override { return ResponseKind::count; }
  std::string check_response(double y) const override;
  // -log y! per row.
  bool log_constants(const double* y, const double* trials, Index rows, double* out) const override;
  double initial_eta(const ResponseMoments& m) const override { return start::log_link(m.mean); }
  ad::Var log_lik(const ad::Var& params, const DataBlock<double>& block) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<float>& block) const override;

  // A 2-D integral over (eta, u = log phi) per row (negative_binomial_expectation.cpp).
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
