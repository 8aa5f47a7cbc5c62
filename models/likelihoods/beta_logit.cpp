#include "models/likelihoods/beta_logit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "inference/ad/ad.hpp"
#include "models/likelihoods/response_checks.hpp"

namespace bvi::models {

BetaLogit::BetaLogit(const ParameterLayout& layout, bool fused) : eta_(layout, "beta_logit"), fused_(fused) {
  const ParameterBlock* phi = layout.find("phi");
  if (!phi || phi->size != 1) throw std::logic_error("beta_logit needs a scalar phi parameter");
  phi_offset_ = phi->offset;
}

std::string BetaLogit::check_response(double y) const {
  return check_unit_interval_response(y, name());
}

// The method of moments: Var y = mu (1 - mu) / (1 + phi) gives phi = mean (1 - mean) / Var y - 1
// for the pooled responses, clipped to [0.1, 1000] (the pooled variance includes the
// predictors' spread, so this errs low: a start, not an estimate).
double BetaLogit::initial_scale(double y_mean, double y_var) const {
  if (y_var > 0.0) return std::log(std::min(1000.0, std::max(0.1, y_mean * (1.0 - y_mean) / y_var - 1.0)));
  return std::log(10.0);
}

template <class T>
ad::Var BetaLogit::fused(const ad::Var& params, const DataBlock<T>& block) const {
  const ad::Var phi = params.col(phi_offset_);
  return eta_.fused(params, block, [&](const ad::Var* alpha, const ad::Var& beta, const ad::Var* extra) {
    return ad::beta_logit_glm<T>(alpha, beta, phi, block.x, LinearPredictor::rows(block), extra);
  });
}

// row_sums(beta_logit_lpdf(y, eta, phi)), y a 1 x m row and phi an S x 1 column.
template <class T>
ad::Var BetaLogit::composed(const ad::Var& params, const DataBlock<T>& block) const {
  ad::Tape& tape = params.tape();
  const ad::Var eta = eta_.composed(params, block);
  return LinearPredictor::weighted_row_sums(block, 
      ad::beta_logit_lpdf(tape.constant(block.y, 1, block.rows), eta, params.col(phi_offset_)));
}

ad::Var BetaLogit::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var BetaLogit::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

}  // namespace bvi::models
