#include "inference/final_approximation.hpp"

#include <cmath>
#include <stdexcept>

#include "common/error.hpp"
#include "inference/rng/normal_stream.hpp"

namespace bvi::vi {

namespace {

// Draws from q with a finite log density (redrawn as for the ELBO), and their log q.
OutputDraws make_draws(ElboEstimator& estimator, const Family& q, rng::Purpose purpose, Eigen::Index n) {
  OutputDraws d;
  if (n == 0) {
    d.zeta.resize(0, q.dim());
    return d;
  }
  estimator.elbo(q, n, purpose, 0);
  d.log_p = estimator.last_log_p();
  d.log_q.resize(n);
  q.log_density_of_draws(estimator.last_eps(), d.log_q);
  d.zeta = estimator.take_zeta();  // S x P: a copy would cost as much as drawing them
  return d;
}

}  // namespace

FinalReport report_final(LogDensity& density, const Family& q, std::uint64_t seed, Eigen::Index elbo_draws,
                         Eigen::Index output_draws) {
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
  r.draws = make_draws(estimator, q, rng::Purpose::output, output_draws);
  if (output_draws >= 100) {
    r.pareto = diagnostics::pareto_k_hat(r.draws.log_p - r.draws.log_q);
    r.pareto_draws = output_draws;
  }
  return r;
}

FinalReport report_final_from_output(LogDensity& density, const Family& q, std::uint64_t seed,
                                     Eigen::Index output_draws) {
  if (output_draws < 100) throw std::logic_error("report_final_from_output: fewer than 100 output draws");
  FinalReport r;
  ElboEstimator estimator(density, seed);
  r.draws = make_draws(estimator, q, rng::Purpose::output, output_draws);
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
                               Eigen::Index psis_draws, Eigen::Index output_draws) {
  FinalReport r;
  r.elbo.value = elbo;
  r.elbo.se = elbo_se;
  ElboEstimator estimator(density, seed);
  if (output_draws < 100) {
    const OutputDraws d = make_draws(estimator, q, rng::Purpose::final_elbo, psis_draws);
    r.pareto = diagnostics::pareto_k_hat(d.log_p - d.log_q);
    r.pareto_draws = psis_draws;
  }
  r.draws = make_draws(estimator, q, rng::Purpose::output, output_draws);
  if (output_draws >= 100) {
    r.pareto = diagnostics::pareto_k_hat(r.draws.log_p - r.draws.log_q);
    r.pareto_draws = output_draws;
  }
  return r;
}

}  // namespace bvi::vi
