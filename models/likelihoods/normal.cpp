#include "models/likelihoods/normal.hpp"

#include <stdexcept>

#include "inference/ad/ad.hpp"
#include "inference/math/constants.hpp"
#include <cmath>

namespace bvi::models {

NormalLikelihood::NormalLikelihood(const ParameterLayout& layout, bool fused)
    : eta_(layout, "normal"), fused_(fused) {
  const ParameterBlock* sigma = layout.find("sigma");
  if (!sigma || sigma->size != 1) throw std::logic_error("normal needs a scalar sigma parameter");
  sigma_offset_ = sigma->offset;
}

template <class T>
ad::Var NormalLikelihood::fused(const ad::Var& params, const DataBlock<T>& block) const {
  const ad::Var sigma = params.col(sigma_offset_);
  return eta_.fused(params, block, [&](const ad::Var* alpha, const ad::Var& beta, const ad::Var* extra) {
    return ad::normal_glm<T>(alpha, beta, sigma, block.x, LinearPredictor::rows(block), extra);
  });
}

// row_sums(normal_lpdf(y, eta, sigma)), y a 1 x m row and sigma an S x 1 column.
template <class T>
ad::Var NormalLikelihood::composed(const ad::Var& params, const DataBlock<T>& block) const {
  ad::Tape& tape = params.tape();
  const ad::Var eta = eta_.composed(params, block);
  return LinearPredictor::weighted_row_sums(block, ad::normal_lpdf(tape.constant(block.y, 1, block.rows), eta, params.col(sigma_offset_)));
}

ad::Var NormalLikelihood::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var NormalLikelihood::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

// log p = -log(2 pi)/2 - u - (y - eta)^2 e^{-2u}/2 with u = log sigma. For (eta, u) jointly
// normal, E[g(eta) e^{-2u}] = E[e^{-2u}] E'[g(eta)] where the tilted eta' ~ N(mean - 2c, var),
// c = Cov(eta, u), and E e^{-2u} = exp(-2 u_mean + 2 u_var), so with A = exp(-2 u_mean + 2 u_var),
// r = y - mean + 2c and Q = r^2 + var:
//   E log p = -log(2 pi)/2 - u_mean - A Q / 2,
//   d/dmean = A r,  d/dvar = -A/2,  d/dc = -2 A r,  d/du_mean = -1 + A Q,  d/du_var = -A Q.
void NormalLikelihood::expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                                        quadrature::ExpectationScratch&) const {
  using bvi::math::kHalfLog2Pi;
  const double A = std::exp(-2.0 * eta.u_mean + 2.0 * eta.u_var);
  double du_mean = 0.0, du_var = 0.0;
  for (Index i = 0; i < eta.rows; ++i) {
    const double c = eta.cov_u ? eta.cov_u[i] : 0.0;
    const double r = rows.y[i] - eta.mean[i] + 2.0 * c;
    const double Q = r * r + eta.var[i];
    out.value[i] = -kHalfLog2Pi - eta.u_mean - 0.5 * A * Q;
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
