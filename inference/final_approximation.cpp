#include "inference/final_approximation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/error.hpp"
#include "inference/rng/normal_stream.hpp"

namespace bvi::vi {

namespace {

// The output draws pass through the log joint this many at a time (models::LogJoint's own batch:
// the same sums as one request of them all), so that the phase holds one batch of draws beside
// the columns kept, not two S x P matrices (eps and zeta). With or without --output the draws are
// made in the same batches: a dense family's transform (a GEMM, which rounds a row by where it
// falls in the batch) then gives the same bits either way.
constexpr Eigen::Index kDrawBatch = 256;

// Draws from q with a finite log density (redrawn as for the ELBO), their log q, and the columns
// `kept` of them.
OutputDraws make_draws(ElboEstimator& estimator, const Family& q, rng::Purpose purpose, Eigen::Index n,
                       KeptColumns kept) {
  if (kept.count < 0) kept = {0, q.dim()};
  if (kept.first < 0 || kept.first + kept.count > q.dim())
    throw std::invalid_argument("make_draws: kept columns out of range");
  OutputDraws d;
  d.zeta_first = kept.first;
  d.zeta.resize(n, kept.count);
  d.log_p.resize(n);
  d.log_q.resize(n);
  long redrawn = 0;
  Eigen::VectorXd log_q;
  for (Eigen::Index first = 0; first < n; first += kDrawBatch) {
    const Eigen::Index b = std::min(kDrawBatch, n - first);
    estimator.draw_range(q, first, b, n, purpose, 0, &redrawn);
    d.log_p.segment(first, b) = estimator.last_log_p();
    log_q.resize(b);
    q.log_density_of_draws(estimator.last_eps(), log_q);
    d.log_q.segment(first, b) = log_q;
    // (No block of a matrix with no columns: its data pointer is null, and an offset to it is UB.)
    if (kept.count > 0) d.zeta.middleRows(first, b) = estimator.last_zeta().middleCols(kept.first, kept.count);
  }
  return d;
}

}  // namespace

FinalReport report_final(LogDensity& density, const Family& q, std::uint64_t seed, Eigen::Index elbo_draws,
                         Eigen::Index output_draws, KeptColumns kept) {
  FinalReport r;
  ElboEstimator estimator(density, seed);
  r.elbo = estimator.elbo(q, elbo_draws, rng::Purpose::final_elbo, 0);
  r.elbo_draw_count = elbo_draws;
  r.elbo_draws = estimator.take_zeta();
  if (output_draws < 100) {
    // Too few output draws for a tail fit: use the ELBO draws, which are still at hand.
    Eigen::VectorXd log_q(elbo_draws);
    q.log_density_of_draws(estimator.last_eps(), log_q);
    r.pareto = diagnostics::pareto_k_hat(estimator.last_log_p() - log_q);
    r.pareto_draws = elbo_draws;
  }
  r.draws = make_draws(estimator, q, rng::Purpose::output, output_draws, kept);
  if (output_draws >= 100) {
    r.pareto = diagnostics::pareto_k_hat(r.draws.log_p - r.draws.log_q);
    r.pareto_draws = output_draws;
  }
  return r;
}

FinalReport report_final_from_output(LogDensity& density, const Family& q, std::uint64_t seed,
                                     Eigen::Index output_draws, KeptColumns kept) {
  if (output_draws < 100) throw std::logic_error("report_final_from_output: fewer than 100 output draws");
  FinalReport r;
  ElboEstimator estimator(density, seed);
  r.draws = make_draws(estimator, q, rng::Purpose::output, output_draws, kept);
  const Eigen::ArrayXd d = (r.draws.log_p - r.draws.log_q).array();
  const double n = static_cast<double>(output_draws), mean = d.mean();
  r.elbo.value = mean;
  r.elbo.se = std::sqrt((d - mean).square().sum() / (n - 1) / n);
  r.elbo_draw_count = output_draws;
  r.pareto = diagnostics::pareto_k_hat(d.matrix());
  r.pareto_draws = output_draws;
  return r;
}

FinalReport report_final_exact(LogDensity& density, const Family& q, std::uint64_t seed, double elbo, double elbo_se,
                               Eigen::Index psis_draws, Eigen::Index output_draws, KeptColumns kept) {
  FinalReport r;
  r.elbo.value = elbo;
  r.elbo.se = elbo_se;
  ElboEstimator estimator(density, seed);
  if (output_draws < 100) {
    const OutputDraws d = make_draws(estimator, q, rng::Purpose::final_elbo, psis_draws, KeptColumns::none());
    r.pareto = diagnostics::pareto_k_hat(d.log_p - d.log_q);
    r.pareto_draws = psis_draws;
  }
  r.draws = make_draws(estimator, q, rng::Purpose::output, output_draws, kept);
  if (output_draws >= 100) {
    r.pareto = diagnostics::pareto_k_hat(r.draws.log_p - r.draws.log_q);
    r.pareto_draws = output_draws;
  }
  return r;
}

}  // namespace bvi::vi
