#include "models/likelihoods/categorical_logit.hpp"

#include <cmath>
#include <stdexcept>

#include "inference/ad/ad.hpp"
#include "models/likelihoods/linear_predictor.hpp"
#include "models/likelihoods/ordinal.hpp"
#include "models/likelihoods/response_checks.hpp"

namespace bvi::models {

CategoricalLogit::CategoricalLogit(const ParameterLayout& layout, bool /*fused: there is one path*/) {
  const ParameterBlock* beta = layout.find("beta");
  if (!beta) throw std::logic_error("categorical_logit needs a beta parameter");
  beta_offset_ = beta->offset;
  beta_size_ = beta->size;
  if (const ParameterBlock* alpha = layout.find("alpha")) alpha_offset_ = alpha->offset;
  categories_ = layout.categories();
  reference_ = layout.reference_category();
  for (const auto& b : layout.blocks())
    if (b.name.compare(0, 2, "r_") == 0)
      throw std::logic_error("categorical_logit has no group effects yet (the config refuses them)");
}

// An integer category 1, 2, ...: K is the largest in the data unless the config gives it.
std::string CategoricalLogit::check_response(double y) const {
  const int top = categories_ > 0 ? categories_ : kMaxOrdinalLevels;
  if (y >= 1.0 && y <= top && std::floor(y) == y) return "";
  return "response must be an integer category 1, 2, ..., " + std::to_string(top) + " for categorical_logit" +
         (categories_ > 0 ? " (the model's K)" : "") + ", got " + shortest_text(y);
}

template <class T>
ad::Var CategoricalLogit::evaluate(const ad::Var& params, const DataBlock<T>& block) const {
  if (categories_ < 2) throw std::logic_error("categorical_logit: the layout does not know K");
  if (block.n_groups > 0) throw std::logic_error("categorical_logit has no group effects yet");
  const ad::Var beta = params.cols(beta_offset_, beta_size_);
  const ad::Var alpha = alpha_offset_ >= 0 ? params.cols(alpha_offset_, categories_ - 1) : ad::Var();
  return ad::categorical_logit_glm<T>(alpha_offset_ >= 0 ? &alpha : nullptr, beta, block.x,
                                      LinearPredictor::rows(block), categories_, reference_);
}

ad::Var CategoricalLogit::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return evaluate(params, block);
}
ad::Var CategoricalLogit::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return evaluate(params, block);
}

void CategoricalLogit::expected_log_lik(const EtaMoments&, const ad::GlmRows&, RowExpectations&,
                                        quadrature::ExpectationScratch&) const {
  throw std::logic_error("categorical_logit has no exact expectation (the config resolves it to monte_carlo)");
}

}  // namespace bvi::models
