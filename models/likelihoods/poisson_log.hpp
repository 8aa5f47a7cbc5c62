#pragma once
// Poisson log-linear regression: y_n ~ Poisson(exp(alpha + x_n . beta + offset_n)), with
// offset_n = data.offset + log(data.exposure) when either is given.
#include "models/likelihoods/likelihood.hpp"
#include "models/likelihoods/linear_predictor.hpp"

namespace bvi::models {

class PoissonLog final : public Likelihood {
 public:
  PoissonLog(const ParameterLayout& layout, bool fused);
  std::string name() const override { return "poisson_log"; }
  ResponseKind response_kind() const override { return ResponseKind::count; }
  std::string check_response(double y) const override;
  // -log y! per row.
  bool log_constants(const double* y, const double* trials, Index rows, double* out) const override;
  double initial_eta(const ResponseMoments& m) const override { return start::count_log_link(m); }
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
