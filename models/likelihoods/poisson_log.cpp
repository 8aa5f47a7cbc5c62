#include "models/likelihoods/poisson_log.hpp"

#include "inference/ad/ad.hpp"
#include "inference/math/log_factorial.hpp"
#include "models/likelihoods/response_checks.hpp"
#include <cmath>

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
  return LinearPredictor::weighted_row_sums(block, ad::subtract(terms, tape.constant(log_fact, 1, m)));
}

ad::Var PoissonLog::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var PoissonLog::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

// log p = y eta - e^eta - log y!, and E e^eta = exp(mean + var/2) (the lognormal mean):
//   E log p = y mean - exp(mean + var/2) - log y!,  d/dmean = y - exp(.),  d/dvar = -exp(.)/2.
// A rate that overflows gives -inf, as the log density itself does.
// A large count's terms are each near y log y while their sum is near -log(2 pi y) / 2: summed
// as they stand, they leave rounding of eps y log y that moves with q (3e-8 a row at y = 3.6e7),
// beyond the 1e-12 of the ELBO the exact optimizer's line search tells steps apart by, and it
// stalled. So from kLargeCount, with l = log y, delta = mean - l and r = delta + var/2,
//   E log p = y delta - y expm1(r) + (y l - y - log y!),
// the last bracket the same rounding at every q, the others of their own (small) size. Both
// terms take the one rounded delta: r rounded as mean + var/2 first (eps * mean, 4e-15 at a mean
// near 18) moved y expm1(r) by y times that, 4e-7 a row at y = 10^8 that y delta did not share,
// and fullrank's line search stalled on it ("no step improves" at residual 1e-3).
void PoissonLog::expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                                  quadrature::ExpectationScratch&) const {
  constexpr double kLargeCount = 1024;
  for (Index i = 0; i < eta.rows; ++i) {
    const double y = rows.y[i];
    const double c = rows.log_constant ? rows.log_constant[i] : -math::log_factorial(y);
    if (y >= kLargeCount) {
      const double l = std::log(y), delta = eta.mean[i] - l, excess = y * std::expm1(delta + 0.5 * eta.var[i]);
      out.value[i] = y * delta - excess + ((y * l - y) + c);
      out.d_mean[i] = -excess;
      out.d_var[i] = -0.5 * (y + excess);
      continue;
    }
    const double rate = std::exp(eta.mean[i] + 0.5 * eta.var[i]);
    out.value[i] = (y == 0.0 ? 0.0 : y * eta.mean[i]) - rate + c;
    out.d_mean[i] = y - rate;
    out.d_var[i] = -0.5 * rate;
  }
}

}  // namespace bvi::models
