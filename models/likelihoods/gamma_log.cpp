#include "models/likelihoods/gamma_log.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "inference/ad/ad.hpp"
#include "models/likelihoods/response_checks.hpp"

namespace bvi::models {

GammaLog::GammaLog(const ParameterLayout& layout, bool fused) : eta_(layout, "gamma_log"), fused_(fused) {
  const ParameterBlock* shape = layout.find("shape");
  if (!shape || shape->size != 1) throw std::logic_error("gamma_log needs a scalar shape parameter");
  shape_offset_ = shape->offset;
}

std::string GammaLog::check_response(double y) const {
  return check_positive_response(y, name());
}

bool GammaLog::log_constants(const double* y, const double*, Index rows, double* out) const {
  for (Index n = 0; n < rows; ++n) out[n] = -std::log(y[n]);
  return true;
}

// The method of moments: Var y = mu^2 / shape gives shape = mean^2 / Var y for the pooled
// responses, clipped to [0.01, 100]. The pooled variance includes the predictors' spread, so
// this errs low (a start, not an estimate).
double GammaLog::initial_scale(double y_mean, double y_var) const {
  if (y_mean > 0.0 && y_var > 0.0) return std::log(std::min(100.0, std::max(0.01, y_mean * y_mean / y_var)));
  return 0.0;
}

template <class T>
ad::Var GammaLog::fused(const ad::Var& params, const DataBlock<T>& block) const {
  const ad::Var shape = params.col(shape_offset_);
  return eta_.fused(params, block, [&](const ad::Var* alpha, const ad::Var& beta, const ad::Var* extra) {
    return ad::gamma_log_glm<T>(alpha, beta, shape, block.x, LinearPredictor::rows(block), extra);
  });
}

// row_sums(gamma_log_lpdf(y, eta, shape)), y a 1 x m row and shape an S x 1 column.
template <class T>
ad::Var GammaLog::composed(const ad::Var& params, const DataBlock<T>& block) const {
  ad::Tape& tape = params.tape();
  const ad::Var eta = eta_.composed(params, block);
  return LinearPredictor::weighted_row_sums(block, 
      ad::gamma_log_lpdf(tape.constant(block.y, 1, block.rows), eta, params.col(shape_offset_)));
}

ad::Var GammaLog::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var GammaLog::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

}  // namespace bvi::models
