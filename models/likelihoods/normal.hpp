#pragma once
// Gaussian linear regression: y_n ~ Normal(alpha + x_n . beta, sigma), with the scale sigma a
// positive parameter of the model (likelihood_needs("normal").parameters).
#include "models/likelihoods/likelihood.hpp"
#include "models/likelihoods/linear_predictor.hpp"

namespace bvi::models {

class NormalLikelihood final : public Likelihood {
 public:
  NormalLikelihood(const ParameterLayout& layout, bool fused);
  std::string name() const override { return "normal"; }
  ResponseKind response_kind() const override { return ResponseKind::real; }
  std::string check_response(double) const override {
    return "";
  }  // any finite y (the reader rejects the rest)
  bool location_family() const override { return true; }
  double initial_eta(const ResponseMoments& m) const override { return m.mean; }
  ad::Var log_lik(const ad::Var& params, const DataBlock<double>& block) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<float>& block) const override;

  void expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                        quadrature::ExpectationScratch& scratch) const override;
  Index scale_column() const override { return sigma_offset_; }
  bool scale_on_eta() const override { return true; }
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
