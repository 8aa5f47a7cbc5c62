#pragma once
// Cumulative ordinal regression for ordered categories 1 ... K (ratings, grades, stages), as
// rstanarm's stan_polr, brms's cumulative family and Stan's ordered_logistic / ordered_probit:
//   P(y_n = k) = F(c_k - eta_n) - F(c_{k-1} - eta_n),  c_0 = -inf, c_K = +inf,
//   eta_n = x_n . beta (+ group effects), F = expit (ordinal_logit) or Phi (ordinal_probit),
// with K - 1 increasing cutpoints `cutpoints` (Stan's ordered transform: c_1, log(c_k - c_{k-1})
// unconstrained). No intercept: the cutpoints take its place. K is the largest category in the
// data (a category never observed below it still counts), or the length of /data/levels when the
// response is labels (the reader maps them to 1 ... K). Responses must be integers >= 1.
// Only the Monte Carlo method fits it: each row's expected log likelihood involves eta and two
// cutpoints, no one-dimensional integral.
#include "inference/ad/ops/ordinal_kernel.hpp"
#include "models/likelihoods/likelihood.hpp"
#include "models/likelihoods/linear_predictor.hpp"

namespace bvi::models {

class OrdinalLikelihood : public Likelihood {
 public:
  OrdinalLikelihood(const ParameterLayout& layout, ad::detail::OrdinalLink link);
  std::string name() const override;
  ResponseKind response_kind() const override { return ResponseKind::ordinal; }
  std::string check_response(double y) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<double>& block) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<float>& block) const override;
  // Never called: the config refuses the exact method for the ordinal likelihoods.
  void expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                        quadrature::ExpectationScratch& scratch) const override;

  bool has_eta_curvature() const override { return true; }
  bool eta_curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<double>& block,
                     Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const override;
  bool eta_curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<float>& block,
                     Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const override;

  ad::detail::OrdinalLink link() const { return link_; }
  int levels() const { return static_cast<int>(cut_size_ + 1); }
  Index cutpoints_column() const { return cut_offset_; }
  void set_fused(bool fused) { fused_ = fused; }

 private:
  template <class T>
  ad::Var evaluate(const ad::Var& params, const DataBlock<T>& block) const;
  template <class T>
  void curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<T>& block, Eigen::MatrixXd& eta,
                 Eigen::MatrixXd& out) const;

  LinearPredictor eta_;
  ad::detail::OrdinalLink link_;
  Index cut_offset_ = 0, cut_size_ = 1;
  bool fused_ = true;
  bool knows_levels_ = false;
};

class OrdinalLogit final : public OrdinalLikelihood {
 public:
  OrdinalLogit(const ParameterLayout& layout, bool fused) : OrdinalLikelihood(layout, ad::detail::OrdinalLink::logit) {
    set_fused(fused);
  }
};

class OrdinalProbit final : public OrdinalLikelihood {
 public:
  OrdinalProbit(const ParameterLayout& layout, bool fused)
      : OrdinalLikelihood(layout, ad::detail::OrdinalLink::probit) {
    set_fused(fused);
  }
};

}  // namespace bvi::models
