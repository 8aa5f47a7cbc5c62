#include "models/likelihoods/lognormal.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "inference/ad/ad.hpp"
#include "inference/math/constants.hpp"
#include "models/likelihoods/response_checks.hpp"

namespace bvi::models {

Lognormal::Lognormal(const ParameterLayout& layout, bool fused) : eta_(layout, "lognormal"), fused_(fused) {
  const ParameterBlock* sigma = layout.find("sigma");
  if (!sigma || sigma->size != 1) throw std::logic_error("lognormal needs a scalar sigma parameter");
  sigma_offset_ = sigma->offset;
}

std::string Lognormal::check_response(double y) const {
  return check_positive_response(y, name());
}

bool Lognormal::log_constants(const double* y, const double*, Index rows, double* out) const {
  for (Index n = 0; n < rows; ++n) out[n] = -std::log(y[n]);
  return true;
}

// The pooled moments of y (not log y) are what the exact method hands over; a lognormal with
// mean M and variance V has sigma^2 = log(1 + V / M^2), so that is the start of log sigma
// (the predictors ignored: a start, not an estimate).
double Lognormal::initial_scale(double y_mean, double y_var) const {
  if (y_mean > 0.0 && y_var > 0.0) return 0.5 * std::log(std::log1p(y_var / (y_mean * y_mean)));
  return 0.0;
}

template <class T>
ad::Var Lognormal::fused(const ad::Var& params, const DataBlock<T>& block) const {
  const ad::Var sigma = params.col(sigma_offset_);
  return eta_.fused(params, block, [&](const ad::Var* alpha, const ad::Var& beta, const ad::Var* extra) {
    return ad::lognormal_glm<T>(alpha, beta, sigma, block.x, LinearPredictor::rows(block), extra);
  });
}

// row_sums(lognormal_lpdf(y, eta, sigma)), y a 1 x m row and sigma an S x 1 column.
template <class T>
ad::Var Lognormal::composed(const ad::Var& params, const DataBlock<T>& block) const {
  ad::Tape& tape = params.tape();
  const ad::Var eta = eta_.composed(params, block);
  return LinearPredictor::weighted_row_sums(block, 
      ad::lognormal_lpdf(tape.constant(block.y, 1, block.rows), eta, params.col(sigma_offset_)));
}

ad::Var Lognormal::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var Lognormal::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

// NormalLikelihood::expected_log_lik with y replaced by log y, and the Jacobian -log y (a
// constant under q). With u = log sigma, A = exp(-2 u_mean + 2 u_var), c = Cov(eta, u),
// r = log y - mean + 2c and Q = r^2 + var:
//   E log p = -log y - log(2 pi)/2 - u_mean - A Q / 2,
//   d/dmean = A r,  d/dvar = -A/2,  d/dc = -2 A r,  d/du_mean = -1 + A Q,  d/du_var = -A Q.
void Lognormal::expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                                 quadrature::ExpectationScratch&) const {
  using bvi::math::kHalfLog2Pi;
  const double A = std::exp(-2.0 * eta.u_mean + 2.0 * eta.u_var);
  double du_mean = 0.0, du_var = 0.0;
  for (Index i = 0; i < eta.rows; ++i) {
    const double neg_log_y = rows.log_constant ? rows.log_constant[i] : -std::log(rows.y[i]);
    const double c = eta.cov_u ? eta.cov_u[i] : 0.0;
    const double r = -neg_log_y - eta.mean[i] + 2.0 * c;
    const double Q = r * r + eta.var[i];
    out.value[i] = neg_log_y - kHalfLog2Pi - eta.u_mean - 0.5 * A * Q;
    out.d_mean[i] = A * r;
    out.d_var[i] = -0.5 * A;
    if (out.d_cov_u) out.d_cov_u[i] = -2.0 * A * r;
    const double wt = ad::row_weight(rows, i);
    du_mean += wt * (-1.0 + A * Q);
    du_var -= wt * A * Q;
  }
  out.d_u_mean += du_mean;
  out.d_u_var += du_var;
}

}  // namespace bvi::models
