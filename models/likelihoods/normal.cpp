#include "models/likelihoods/normal.hpp"

#include <stdexcept>

#include "inference/ad/ad.hpp"

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
  return ad::row_sums(ad::normal_lpdf(tape.constant(block.y, 1, block.rows), eta, params.col(sigma_offset_)));
}

ad::Var NormalLikelihood::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var NormalLikelihood::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

}  // namespace bvi::models
