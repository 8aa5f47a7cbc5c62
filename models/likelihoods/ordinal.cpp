#include "models/likelihoods/ordinal.hpp"

#include <cmath>
#include <limits>
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

// d^2 l / d eta^2 in closed form from the kernel's stable partials. With l = log(F(b) - F(a)),
// a = c_{k-1} - eta, b = c_k - eta, g_a = dl/da = -f(a) / p, g_b = dl/db = f(b) / p:
//   d^2 l / d eta^2 = (f'(b) - f'(a)) / p - (g_a + g_b)^2 = g_b u(b) + g_a u(a) - (g_a + g_b)^2,
// u = f' / f: 1 - 2 F(x) = -tanh(x / 2) for the logistic, -x for the normal. An infinite bound
// (the first or last category) has a zero partial and adds nothing. (It was the central
// difference of dl/deta, two kernel calls a value, exact to ~1e-10.)
template <class T>
void OrdinalLikelihood::curvature(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<T>& block,
                                  Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const {
  eta_.values(params, block, eta);
  const Index S = params.rows(), m = block.rows;
  const int K = levels();
  const bool logit = link_ == ad::detail::OrdinalLink::logit;
  const long stride = static_cast<long>(params.outerStride());
  keep_columns(out, S, m);
  for (Index n = 0; n < m; ++n) {
    const int k0 = static_cast<int>(block.y[n]) - 1;
    const double w = block.weight ? block.weight[n] : 1.0;
    const bool lo = k0 > 0, hi = k0 < K - 1;
    for (Index s = 0; s < S; ++s) {
      const double* c = params.data() + s + cut_offset_ * params.outerStride();
      const double e = eta(s, n);
      const double a = lo ? c[static_cast<long>(k0 - 1) * stride] - e : -std::numeric_limits<double>::infinity();
      const double b = hi ? c[static_cast<long>(k0) * stride] - e : std::numeric_limits<double>::infinity();
      double ga = 0.0, gb = 0.0;
      if (logit)
        ad::detail::ordinal_logit_term(a, b, &ga, &gb);
      else
        ad::detail::ordinal_probit_term(a, b, &ga, &gb);
      double d2 = -(ga + gb) * (ga + gb);
      if (lo) d2 += ga * (logit ? -std::tanh(0.5 * a) : -a);
      if (hi) d2 += gb * (logit ? -std::tanh(0.5 * b) : -b);
      out(s, n) = w * d2;
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
