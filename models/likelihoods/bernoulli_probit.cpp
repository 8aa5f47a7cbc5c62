#include "models/likelihoods/bernoulli_probit.hpp"

#include "inference/ad/ad.hpp"
#include "models/likelihoods/response_checks.hpp"

namespace bvi::models {

BernoulliProbit::BernoulliProbit(const ParameterLayout& layout, bool fused)
    : eta_(layout, "bernoulli_probit"), fused_(fused) {}

std::string BernoulliProbit::check_response(double y) const {
  return check_binary_response(y, name());
}

template <class T>
ad::Var BernoulliProbit::fused(const ad::Var& params, const DataBlock<T>& block) const {
  return eta_.fused(params, block, [&](const ad::Var* alpha, const ad::Var& beta, const ad::Var* extra) {
    return ad::bernoulli_probit_glm<T>(alpha, beta, block.x, LinearPredictor::rows(block), extra);
  });
}

// log P(y | eta) = log Phi(t eta), t = 2y - 1 (1 - Phi(eta) = Phi(-eta)):
// row_sums(log_ndtr(t .* eta)).
template <class T>
ad::Var BernoulliProbit::composed(const ad::Var& params, const DataBlock<T>& block) const {
  ad::Tape& tape = params.tape();
  const Index m = block.rows;
  double* t = tape.scratch(m);
  for (Index n = 0; n < m; ++n) t[n] = block.y[n] > 0.5 ? 1.0 : -1.0;
  const ad::Var z = eta_.composed(params, block);
  return ad::row_sums(ad::log_ndtr(ad::multiply(z, tape.constant(t, 1, m))));
}

ad::Var BernoulliProbit::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var BernoulliProbit::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

}  // namespace bvi::models
