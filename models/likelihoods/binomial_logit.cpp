#include "models/likelihoods/binomial_logit.hpp"

#include <stdexcept>

#include "inference/ad/ad.hpp"
#include "inference/math/log_factorial.hpp"
#include "models/likelihoods/response_checks.hpp"
#include "models/likelihoods/expectation_kernels.hpp"

namespace bvi::models {

BinomialLogit::BinomialLogit(const ParameterLayout& layout, bool fused)
    : eta_(layout, "binomial_logit"), fused_(fused) {}

std::string BinomialLogit::check_response(double y) const {
  return check_count_response(y, name());
}

std::string BinomialLogit::check_response(double y, double trials) const {
  if (y <= trials) return "";
  return "response " + shortest_text(y) + " is more than the number of trials, " + shortest_text(trials);
}

bool BinomialLogit::log_constants(const double* y, const double* trials, Index rows, double* out) const {
  for (Index n = 0; n < rows; ++n) out[n] = math::log_binomial_coefficient(trials[n], y[n]);
  return true;
}

template <class T>
ad::Var BinomialLogit::fused(const ad::Var& params, const DataBlock<T>& block) const {
  if (!block.trials) throw std::logic_error("binomial_logit: the data block has no trials");
  return eta_.fused(params, block, [&](const ad::Var* alpha, const ad::Var& beta, const ad::Var* extra) {
    return ad::binomial_logit_glm<T>(alpha, beta, block.x, LinearPredictor::rows(block), extra);
  });
}

// log p = y log sigmoid(eta) + (n - y) log sigmoid(-eta) + log C(n, y):
// row_sums(log_sigmoid(eta) .* y + log_sigmoid(-eta) .* (n - y) + log C).
template <class T>
ad::Var BinomialLogit::composed(const ad::Var& params, const DataBlock<T>& block) const {
  if (!block.trials) throw std::logic_error("binomial_logit: the data block has no trials");
  ad::Tape& tape = params.tape();
  const Index m = block.rows;
  double* failures = tape.scratch(m);
  double* log_choose = tape.scratch(m);
  for (Index n = 0; n < m; ++n) {
    failures[n] = block.trials[n] - block.y[n];
    log_choose[n] = math::log_binomial_coefficient(block.trials[n], block.y[n]);
  }
  const ad::Var eta = eta_.composed(params, block);
  const ad::Var hits = ad::multiply(ad::log_sigmoid(eta), tape.constant(block.y, 1, m));
  const ad::Var misses =
      ad::multiply(ad::log_sigmoid(ad::multiply(eta, tape.constant(-1.0))), tape.constant(failures, 1, m));
  return LinearPredictor::weighted_row_sums(block, ad::add(ad::add(hits, misses), tape.constant(log_choose, 1, m)));
}

ad::Var BinomialLogit::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var BinomialLogit::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

// log p = log C(n, y) + y eta - n softplus(eta):
//   E log p = log C + y mean - n E softplus(eta),  d/dmean = y - n E sigmoid(eta),
//   d/dvar = -n E[sigmoid(eta) sigmoid(-eta)]/2.
void BinomialLogit::expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                                     quadrature::ExpectationScratch& s) const {
  const Index n = eta.rows;
  s.reserve();
  quadrature::gaussian_expectations(SoftplusKernel{}, SoftplusKernel::tiers(), eta.mean, eta.var, n, s.e0.data(),
                                    s.e1.data(), s.e2.data(), s);
  for (Index i = 0; i < n; ++i) {
    const double trials = rows.trials[i], y = rows.y[i];
    const double c = rows.log_constant ? rows.log_constant[i] : math::log_binomial_coefficient(trials, y);
    // y mean - n E softplus: at trials = 0 (so y = 0) the row is exactly 0 whatever eta.
    out.value[i] = trials > 0.0 ? c + y * eta.mean[i] - trials * s.e0[i] : c;
    out.d_mean[i] = y - trials * s.e1[i];
    out.d_var[i] = -0.5 * trials * s.e2[i];
  }
}

}  // namespace bvi::models
