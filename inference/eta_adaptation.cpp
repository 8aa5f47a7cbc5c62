#include "inference/eta_adaptation.hpp"

#include <limits>
#include <sstream>

#include "common/error.hpp"
#include "inference/optimizers/adaptive_step.hpp"

namespace bvi::vi {

double adapt_eta(ElboEstimator& estimator, Family& q, const spec::InferenceConfig& config, Logger& logger,
                 RunObserver* observer) {
  static constexpr double kEtas[] = {100, 10, 1, 0.1, 0.01};
  constexpr int kCount = 5;
  const double worst = -std::numeric_limits<double>::max();
  const Eigen::VectorXd initial = q.params();
  const long n_iter = config.optimizer.adapt_iterations;
  std::uint64_t elbo_step = 0;

  double elbo_init;
  try {
    elbo_init = estimator.elbo(q, config.elbo_samples, rng::Purpose::adaptation_elbo, elbo_step++).value;
  } catch (const Error&) {
    throw inference_error("/inference",
                          "cannot compute the ELBO at the initial approximation; the model may be "
                          "ill-conditioned or misspecified");
  }
  double elbo_best = worst, eta_best = 0.0;
  Eigen::VectorXd grad;
  for (int k = 0; k < kCount; ++k) {
    const double eta = kEtas[k];
    AdaptiveStep opt(eta, config.optimizer.tau, config.optimizer.alpha);
    q.params() = initial;
    for (long t = 1; t <= n_iter; ++t) {
      // A diverging eta is expected here: treat a failed gradient as zero and let the ELBO judge.
      try {
        estimator.gradient(q, config.draws_per_step, rng::Purpose::adaptation,
                           static_cast<std::uint64_t>(k * n_iter + t), grad);
      } catch (const Error&) {
        grad.setZero(q.params().size());
      }
      opt.step(q.params(), grad, t);
      if (!q.is_finite()) break;
    }
    double elbo = worst;
    if (q.is_finite()) {
      try {
        elbo = estimator.elbo(q, config.elbo_samples, rng::Purpose::adaptation_elbo, elbo_step++).value;
      } catch (const Error&) {
        elbo = worst;
      }
    }
    if (observer) observer->on_adaptation(eta, elbo);
    std::ostringstream os;
    os << "eta adaptation: eta = " << eta << ", ELBO = " << elbo;
    logger.debug(os.str());
    // Stan's rule: stop once this eta is worse than the best so far and the best beat the start.
    if (elbo < elbo_best && elbo_best > elbo_init) break;
    if (k < kCount - 1) {
      elbo_best = elbo;
      eta_best = eta;
    } else {
      if (elbo > elbo_init) {
        eta_best = eta;
        break;
      }
      q.params() = initial;
      throw inference_error("/inference/optimizer",
                            "eta adaptation failed: every step size in {100, 10, 1, 0.1, 0.01} made the "
                            "ELBO worse than at the start; the model may be ill-conditioned or "
                            "misspecified");
    }
  }
  q.params() = initial;
  std::ostringstream os;
  os << "eta adaptation chose eta = " << eta_best;
  logger.info(os.str());
  return eta_best;
}

}  // namespace bvi::vi
