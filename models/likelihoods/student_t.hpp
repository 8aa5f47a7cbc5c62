#pragma once
// Robust linear regression: y_n ~ StudentT(nu, alpha + x_n . beta, sigma), as
// scipy.stats.t(df = nu, loc = eta, scale = sigma) (brms's student, Stan's student_t), with two
// positive parameters of the model, the scale `sigma` and the degrees of freedom `nu`
// (likelihood_needs("student_t").parameters), each sampled on the log scale. Any finite y.
//
// No exact expectation: each row's E_q log p is a three-dimensional integral over (eta_i,
// log sigma, log nu), which the exact method's machinery (eta and one scale parameter) does not
// take; the config parser resolves `method: auto` to monte_carlo for this likelihood and refuses
// an explicit `exact` (exact_method_refusal("student_t") says why).
#include "models/likelihoods/likelihood.hpp"
#include "models/likelihoods/linear_predictor.hpp"

namespace bvi::models {

class StudentT final : public Likelihood {
 public:
  StudentT(const ParameterLayout& layout, bool fused);
  std::string name() const override { return "student_t"; }
  ResponseKind response_kind() const override { return ResponseKind::real; }
  std::string check_response(double) const override {
    return "";
  }  // any finite y (the reader rejects the rest)
  ad::Var log_lik(const ad::Var& params, const DataBlock<double>& block) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<float>& block) const override;

  bool has_eta_curvature() const override { return true; }
  bool eta_curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<double>& block,
                     Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const override;
  bool eta_curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<float>& block,
                     Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const override;

  // sigma: where the Monte Carlo method's natural steps start it (LogJoint::initial_mean), at the
  // response's sd as the exact method starts normal's, and the group sds with it.
  Index scale_column() const override { return sigma_offset_; }
  // nu at 10 (log 10 unconstrained; the mode of brms's default gamma(2, 0.1)), where log p is
  // concave in eta within 3.2 sigma of it. From nu = 1 (the Cauchy) nearly every row sits in the
  // convex tails: a fullrank fit of a response in the thousands ended with its group sd at 53 800
  // (simulated 464), from sigma and the sd started at the response's sd.
  void start_own_parameters(Eigen::VectorXd& mean) const override { mean[nu_offset_] = std::log(10.0); }
  bool scale_on_eta() const override { return true; }

  // Never called: the exact method is refused for student_t when the config is read.
  void expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                        quadrature::ExpectationScratch& scratch) const override;

 private:
  template <class T>
  ad::Var fused(const ad::Var& params, const DataBlock<T>& block) const;
  template <class T>
  ad::Var composed(const ad::Var& params, const DataBlock<T>& block) const;
  template <class T>
  void curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<T>& block, Eigen::MatrixXd& eta,
                 Eigen::MatrixXd& out) const;

  LinearPredictor eta_;
  Index sigma_offset_ = 0, nu_offset_ = 0;
  bool fused_;
};

}  // namespace bvi::models
