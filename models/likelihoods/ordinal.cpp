#include "models/likelihoods/ordinal.hpp"

#include <cmath>
#include <stdexcept>

#include "inference/ad/ad.hpp"
#include "models/likelihoods/response_checks.hpp"

namespace bvi::models {

OrdinalLikelihood::OrdinalLikelihood(const ParameterLayout& layout, ad::detail::OrdinalLink link)
    : eta_(layout, link == ad::detail::OrdinalLink::logit ? "ordinal_logit" : "ordinal_probit"), link_(link) {
  const ParameterBlock* c = layout.find("cutpoints");
  if (!c || c->size < 1) throw std::logic_error("the ordinal likelihoods need a cutpoints parameter");
  if (layout.find("alpha")) throw std::logic_error("the ordinal likelihoods have no intercept");
  cut_offset_ = c->offset;
  cut_size_ = c->size;
  // A model's layout carries the ordered transform and knows K (from the data, or the fit predict
  // applies); the data reader's probe layout (model_data.cpp) does not, before K is known.
  knows_levels_ = !c->transforms.empty();
}

std::string OrdinalLikelihood::name() const {
  return link_ == ad::detail::OrdinalLink::logit ? "ordinal_logit" : "ordinal_probit";
}

// An integer category 1, 2, ...: K is the largest in the data, so no upper bound but the cap
// until K is known (predict: the fit's K).
std::string OrdinalLikelihood::check_response(double y) const {
  const int top = knows_levels_ ? levels() : kMaxOrdinalLevels;
  if (y >= 1.0 && y <= top && std::floor(y) == y) return "";
  return "response must be an integer category 1, 2, ..., " + std::to_string(top) + " for " + name() +
         (knows_levels_ ? " (the model's K)" : "") + ", got " + shortest_text(y);
}

template <class T>
ad::Var OrdinalLikelihood::evaluate(const ad::Var& params, const DataBlock<T>& block) const {
  const ad::Var cut = params.cols(cut_offset_, cut_size_);
  if (fused_)
    return eta_.fused(params, block, [&](const ad::Var* alpha, const ad::Var& beta, const ad::Var* extra) {
      return ad::ordinal_glm<T>(alpha, beta, cut, block.x, LinearPredictor::rows(block), link_, extra);
    });
  return LinearPredictor::weighted_row_sums(block, ad::ordinal_lpmf(block.y, eta_.composed(params, block), cut, link_));
}

ad::Var OrdinalLikelihood::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return evaluate(params, block);
}
ad::Var OrdinalLikelihood::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return evaluate(params, block);
}

// d^2 l / d eta^2 as the central difference of the kernel's d l / d eta (exact to ~1e-10 at this
// step: l's third and fourth derivatives are O(1), its rounding eps / h).
template <class T>
void OrdinalLikelihood::curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<T>& block,
                                  Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const {
  constexpr double h = 2e-5;
  eta_.values(params, block, eta);
  const Index S = params.rows(), m = block.rows;
  const int K = levels();
  out.resize(S, m);
  for (Index n = 0; n < m; ++n) {
    const int k0 = static_cast<int>(block.y[n]) - 1;
    const double w = block.weight ? block.weight[n] : 1.0;
    for (Index s = 0; s < S; ++s) {
      const double* c = params.data() + s + cut_offset_ * params.outerStride();
      const long stride = static_cast<long>(params.outerStride());
      double up = 0.0, down = 0.0, lo = 0.0, hi = 0.0;
      ad::detail::ordinal_term(link_, k0, K, c, stride, eta(s, n) + h, &up, &lo, &hi);
      ad::detail::ordinal_term(link_, k0, K, c, stride, eta(s, n) - h, &down, &lo, &hi);
      out(s, n) = w * (up - down) / (2.0 * h);
    }
  }
}

bool OrdinalLikelihood::eta_curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<double>& block,
                                      Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const {
  curvature(params, block, eta, out);
  return true;
}
bool OrdinalLikelihood::eta_curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<float>& block,
                                      Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const {
  curvature(params, block, eta, out);
  return true;
}

void OrdinalLikelihood::expected_log_lik(const EtaMoments&, const ad::GlmRows&, RowExpectations&,
                                         quadrature::ExpectationScratch&) const {
  throw std::logic_error(name() + " has no exact expectation (the config resolves it to monte_carlo)");
}

}  // namespace bvi::models
