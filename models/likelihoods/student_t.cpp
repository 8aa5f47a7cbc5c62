#include "models/likelihoods/student_t.hpp"

#include <cmath>
#include <stdexcept>

#include "inference/ad/ad.hpp"

namespace bvi::models {

StudentT::StudentT(const ParameterLayout& layout, bool fused) : eta_(layout, "student_t"), fused_(fused) {
  const ParameterBlock* sigma = layout.find("sigma");
  const ParameterBlock* nu = layout.find("nu");
  if (!sigma || sigma->size != 1 || !nu || nu->size != 1)
    throw std::logic_error("student_t needs scalar sigma and nu parameters");
  sigma_offset_ = sigma->offset;
  nu_offset_ = nu->offset;
}

template <class T>
ad::Var StudentT::fused(const ad::Var& params, const DataBlock<T>& block) const {
  const ad::Var sigma = params.col(sigma_offset_), nu = params.col(nu_offset_);
  return eta_.fused(params, block, [&](const ad::Var* alpha, const ad::Var& beta, const ad::Var* extra) {
    return ad::student_t_glm<T>(alpha, beta, sigma, nu, block.x, LinearPredictor::rows(block), extra);
  });
}

// sum_n w_n student_t_lpdf(y_n, nu, eta_n, sigma) (row_sums without weights), y a 1 x m row, nu and sigma S x 1 columns.
template <class T>
ad::Var StudentT::composed(const ad::Var& params, const DataBlock<T>& block) const {
  ad::Tape& tape = params.tape();
  const ad::Var eta = eta_.composed(params, block);
  return LinearPredictor::weighted_row_sums(
      block, ad::student_t_lpdf(tape.constant(block.y, 1, block.rows), params.col(nu_offset_), eta,
                                params.col(sigma_offset_)));
}

ad::Var StudentT::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var StudentT::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

// With z = (y - eta) / sigma: d^2 log t / d eta^2 = -(nu + 1) (nu - z^2) / (sigma^2 (nu + z^2)^2),
// positive in the tails (z^2 > nu); -1 / sigma^2 in the normal limit nu = inf.
template <class T>
void StudentT::curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<T>& block,
                         Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const {
  eta_.values(params, block, eta);
  const Index S = params.rows(), m = block.rows;
  keep_columns(out, S, m);
  for (Index n = 0; n < m; ++n) {
    const double w = block.weight ? block.weight[n] : 1.0;
    for (Index s = 0; s < S; ++s) {
      const double sigma = params(s, sigma_offset_), nu = params(s, nu_offset_);
      const double z = (block.y[n] - eta(s, n)) / sigma;
      double v;
      if (std::isinf(nu)) {
        v = -1.0 / (sigma * sigma);
      } else {
        const double d = nu + z * z;
        v = -(nu + 1.0) * (nu - z * z) / (sigma * sigma * d * d);
      }
      out(s, n) = w * v;
    }
  }
}

bool StudentT::eta_curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<double>& block,
                             Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const {
  curvature(params, block, eta, out);
  return true;
}
bool StudentT::eta_curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<float>& block,
                             Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const {
  curvature(params, block, eta, out);
  return true;
}

void StudentT::expected_log_lik(const EtaMoments&, const ad::GlmRows&, RowExpectations&,
                                quadrature::ExpectationScratch&) const {
  throw std::logic_error("student_t has no exact expectation (the config parser refuses method exact)");
}

}  // namespace bvi::models
