#pragma once
// Probit regression: y_n ~ Bernoulli(Phi(alpha + x_n . beta)), Phi the standard normal CDF.
#include "models/likelihoods/likelihood.hpp"
#include "models/likelihoods/linear_predictor.hpp"

namespace bvi::models {

class BernoulliProbit final : public Likelihood {
 public:
  BernoulliProbit(const ParameterLayout& layout, bool fused);
  std::string name() const override { return "bernoulli_probit"; }
  ResponseKind response_kind() const override { return ResponseKind::binary; }
  std::string check_response(double y) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<double>& block) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<float>& block) const override;

  void expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                        quadrature::ExpectationScratch& scratch) const override;
 private:
  template <class T>
  ad::Var fused(const ad::Var& params, const DataBlock<T>& block) const;
  template <class T>
  ad::Var composed(const ad::Var& params, const DataBlock<T>& block) const;

  LinearPredictor eta_;
  bool fused_;
};

}  // namespace bvi::models
