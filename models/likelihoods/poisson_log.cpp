#include "models/likelihoods/poisson_log.hpp"

#include "inference/ad/ad.hpp"
#include "inference/math/log_factorial.hpp"
#include "models/likelihoods/response_checks.hpp"

namespace bvi::models {

PoissonLog::PoissonLog(const ParameterLayout& layout, bool fused)
    : eta_(layout, "poisson_log"), fused_(fused) {}

std::string PoissonLog::check_response(double y) const {
  return check_count_response(y, name());
}

bool PoissonLog::log_constants(const double* y, const double*, Index rows, double* out) const {
  for (Index n = 0; n < rows; ++n) out[n] = -math::log_factorial(y[n]);
  return true;
}

template <class T>
ad::Var PoissonLog::fused(const ad::Var& params, const DataBlock<T>& block) const {
  return eta_.fused(params, block, [&](const ad::Var* alpha, const ad::Var& beta, const ad::Var* extra) {
    return ad::poisson_log_glm<T>(alpha, beta, block.x, LinearPredictor::rows(block), extra);
  });
}

// log p = y eta - exp(eta) - log y!: row_sums(eta .* y - exp(eta) - log y!).
template <class T>
ad::Var PoissonLog::composed(const ad::Var& params, const DataBlock<T>& block) const {
  ad::Tape& tape = params.tape();
  const Index m = block.rows;
  double* log_fact = tape.scratch(m);
  for (Index n = 0; n < m; ++n) log_fact[n] = math::log_factorial(block.y[n]);
  const ad::Var eta = eta_.composed(params, block);
  const ad::Var terms = ad::subtract(ad::multiply(eta, tape.constant(block.y, 1, m)), ad::exp(eta));
  return ad::row_sums(ad::subtract(terms, tape.constant(log_fact, 1, m)));
}

ad::Var PoissonLog::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var PoissonLog::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

}  // namespace bvi::models
