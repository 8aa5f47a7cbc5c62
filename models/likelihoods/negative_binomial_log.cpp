#include "models/likelihoods/negative_binomial_log.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "inference/ad/ad.hpp"
#include "inference/math/log_factorial.hpp"
#include "models/likelihoods/response_checks.hpp"

namespace bvi::models {

NegativeBinomialLog::NegativeBinomialLog(const ParameterLayout& layout, bool fused)
    : eta_(layout, "negative_binomial_log"), fused_(fused) {
  const ParameterBlock* phi = layout.find("phi");
  if (!phi || phi->size != 1) throw std::logic_error("negative_binomial_log needs a scalar phi parameter");
  phi_offset_ = phi->offset;
}

std::string NegativeBinomialLog::check_response(double y) const {
  return check_count_response(y, name());
}

bool NegativeBinomialLog::log_constants(const double* y, const double*, Index rows, double* out) const {
  for (Index n = 0; n < rows; ++n) out[n] = -math::log_factorial(y[n]);
  return true;
}

// The method of moments: Var y = mu + mu^2 / phi gives phi = mu^2 / (Var y - mu) when the counts
// are overdispersed; otherwise (Poisson-like or underdispersed counts) phi starts large, at 100.
// The pooled moments ignore the predictors, so this is a start, not an estimate.
double NegativeBinomialLog::initial_scale(double y_mean, double y_var) const {
  if (y_mean > 0.0 && y_var > y_mean)
    return std::log(std::min(100.0, std::max(0.01, y_mean * y_mean / (y_var - y_mean))));
  return std::log(100.0);
}

template <class T>
ad::Var NegativeBinomialLog::fused(const ad::Var& params, const DataBlock<T>& block) const {
  const ad::Var phi = params.col(phi_offset_);
  return eta_.fused(params, block, [&](const ad::Var* alpha, const ad::Var& beta, const ad::Var* extra) {
    return ad::neg_binomial_2_log_glm<T>(alpha, beta, phi, block.x, LinearPredictor::rows(block), extra);
  });
}

// row_sums(neg_binomial_2_log_lpdf(y, eta, phi)), y a 1 x m row and phi an S x 1 column.
template <class T>
ad::Var NegativeBinomialLog::composed(const ad::Var& params, const DataBlock<T>& block) const {
  ad::Tape& tape = params.tape();
  const ad::Var eta = eta_.composed(params, block);
  return LinearPredictor::weighted_row_sums(block, 
      ad::neg_binomial_2_log_lpdf(tape.constant(block.y, 1, block.rows), eta, params.col(phi_offset_)));
}

ad::Var NegativeBinomialLog::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var NegativeBinomialLog::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

}  // namespace bvi::models
