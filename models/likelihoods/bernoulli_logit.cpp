#include "models/likelihoods/bernoulli_logit.hpp"

#include "inference/ad/ad.hpp"
#include "models/likelihoods/response_checks.hpp"
#include "models/likelihoods/expectation_kernels.hpp"

namespace bvi::models {

BernoulliLogit::BernoulliLogit(const ParameterLayout& layout, bool fused)
    : eta_(layout, "bernoulli_logit"), fused_(fused) {}

std::string BernoulliLogit::check_response(double y) const {
  return check_binary_response(y, name());
}

template <class T>
ad::Var BernoulliLogit::fused(const ad::Var& params, const DataBlock<T>& block) const {
  return eta_.fused(params, block, [&](const ad::Var* alpha, const ad::Var& beta, const ad::Var* extra) {
    // No offset: bernoulli_logit does not accept one (make_likelihood.cpp).
    return ad::bernoulli_logit_glm<T>(alpha, beta, block.x, block.y, block.rows, extra, block.weight);
  });
}

// The same density composed from generic ops, kept as the reference the fused primitive is
// tested against: row_sums(log_sigmoid(t .* eta)), t = 2y - 1.
template <class T>
ad::Var BernoulliLogit::composed(const ad::Var& params, const DataBlock<T>& block) const {
  ad::Tape& tape = params.tape();
  const Index m = block.rows;
  double* t = tape.scratch(m);
  for (Index n = 0; n < m; ++n) t[n] = block.y[n] > 0.5 ? 1.0 : -1.0;
  const ad::Var z = eta_.composed(params, block);
  return LinearPredictor::weighted_row_sums(block, ad::log_sigmoid(ad::multiply(z, tape.constant(t, 1, m))));
}

ad::Var BernoulliLogit::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var BernoulliLogit::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

// log p = -softplus(-t eta), t = 2y - 1: with a = -t eta ~ N(-t mean, var),
//   E log p = -E softplus(a),  d/dmean = t E sigmoid(a),  d/dvar = -E[sigmoid(a) sigmoid(-a)]/2.
void BernoulliLogit::expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                                      quadrature::ExpectationScratch& s) const {
  const Index n = eta.rows;
  s.reserve();
  for (Index i = 0; i < n; ++i) s.arg[i] = rows.y[i] > 0.5 ? -eta.mean[i] : eta.mean[i];
  quadrature::gaussian_expectations(SoftplusKernel{}, SoftplusKernel::tiers(), s.arg.data(), eta.var, n,
                                    s.e0.data(), s.e1.data(), s.e2.data(), s);
  for (Index i = 0; i < n; ++i) {
    const double t = rows.y[i] > 0.5 ? 1.0 : -1.0;
    out.value[i] = -s.e0[i];
    out.d_mean[i] = t * s.e1[i];
    out.d_var[i] = -0.5 * s.e2[i];
  }
}

}  // namespace bvi::models
