#pragma once
// Binomial-logit regression: y_n successes out of n_n trials (the data.trials column),
// y_n ~ Binomial(n_n, sigmoid(alpha + x_n . beta)).
#include "models/likelihoods/likelihood.hpp"
#include "models/likelihoods/linear_predictor.hpp"

namespace bvi::models {

class BinomialLogit final : public Likelihood {
 public:
  BinomialLogit(const ParameterLayout& layout, bool fused);
  std::string name() const override { return "binomial_logit"; }
  ResponseKind response_kind() const override { return ResponseKind::count; }
  std::string check_response(double y) const override;
  std::string check_response(double y, double trials) const override;
  // log C(n, y) per row.
  bool log_constants(const double* y, const double* trials, Index rows, double* out) const override;
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
