#include "inference/advi.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "common/error.hpp"
#include "inference/elbo.hpp"
#include "inference/eta_adaptation.hpp"
#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"
#include "inference/families/sparse_precision.hpp"
#include "inference/initial_mode.hpp"
#include "inference/optimizers/natural_convergence.hpp"
#include "inference/optimizers/natural_gradient.hpp"
#include "inference/optimizers/optimizer.hpp"
#include "inference/stopping_rule.hpp"

namespace bvi::vi {

namespace {

// A group effect starts with its group's sd (exp of its log sd's mean) as q's scale, as the exact
// method's start does. With q's scale at 0.1 and the effects at 0, the prior alone pulls every log
// sd down (the gradient of G log-densities N(r_g | 0, sd) at r near 0), and the natural steps
// climb back only slowly, or not at all: an ordinal model of 1847 rows in 185 groups kept its
// group sd at 0.11 after 200 steps and 0.59 (NUTS 0.58) only after 2000; meanfield put it at 0.
void start_group_effects_at_their_sd(Family& q, const std::vector<Index>& scale_columns) {
  const Index P = q.dim();
  if (static_cast<Index>(scale_columns.size()) != P) return;
  const Eigen::VectorXd mean = q.params().head(P);
  if (auto* mf = dynamic_cast<MeanField*>(&q)) {
    for (Index j = 0; j < P; ++j)
      if (const Index pj = scale_columns[static_cast<std::size_t>(j)]; pj >= 0) mf->omega()[j] = mean[pj];
  } else if (auto* fr = dynamic_cast<FullRank*>(&q)) {
    Eigen::MatrixXd L = fr->cholesky();
    for (Index j = 0; j < P; ++j)
      if (const Index pj = scale_columns[static_cast<std::size_t>(j)]; pj >= 0) L(j, j) = std::exp(mean[pj]);
    fr->set_cholesky(L);
  } else if (auto* sp = dynamic_cast<SparsePrecision*>(&q)) {
    const auto& diagonal = sp->pattern().diagonal();
    for (Index j = 0; j < P; ++j)
      if (const Index pj = scale_columns[static_cast<std::size_t>(j)]; pj >= 0)
        sp->precision()[diagonal[static_cast<std::size_t>(j)]] = std::exp(-2.0 * mean[pj]);
  }
}

}  // namespace

AdviResult run_advi(LogDensity& density, const spec::InferenceConfig& config, Logger& logger,
                    RunObserver* observer, const RunOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto seed = static_cast<std::uint64_t>(config.seed);
  ElboEstimator estimator(density, seed);
  const AdviState* resume = options.resume;
  const double seconds_before = resume ? resume->seconds : 0.0;
  auto elapsed = [&] { return seconds_before + std::chrono::duration<double>(Clock::now() - start).count(); };

  AdviResult result;
  if (config.algorithm == "sparse") {
    if (!options.sparse_pattern) throw std::logic_error("run_advi: the sparse family needs its pattern");
    result.q = std::make_unique<SparsePrecision>(options.sparse_pattern);
  } else {
    result.q = make_family(config.algorithm, density.dim());
  }
  Family& q = *result.q;
  double eta = 0.0;
  if (config.optimizer.name == "adaptive") {
    if (resume && resume->eta)
      eta = *resume->eta;
    else
      eta = config.optimizer.eta ? *config.optimizer.eta : adapt_eta(estimator, q, config, logger, observer);
    result.eta = eta;
  }
  // The natural-gradient rule updates the family through its mean and precision; the others
  // are gradient-ascent rules on the flat parameter vector.
  const bool natural = config.optimizer.name == "natural";
  std::unique_ptr<Optimizer> optimizer = natural ? nullptr : make_optimizer(config.optimizer, eta);
  NaturalGradient natural_gradient(
      {config.optimizer.learning_rate, config.optimizer.min_learning_rate, config.optimizer.half_life});
  // As the exact method's: a log or logit scale moves by at most 1 per step. A natural step from
  // the start can otherwise put a group's log sd several units down (where the prior on the effects
  // near 0 pulls it), and the centred effects' funnel holds it there: a student_t model of 2000
  // rows in 200 groups ended fullrank's 200 steps at a group sd of 0.009 (0.48 with the bound, in
  // 24 steps, at a better ELBO).
  natural_gradient.set_max_mean_step(density.max_mean_step());
  natural_gradient.set_sparse_parts(options.sparse_likelihood, options.sparse_prior, options.sparse_crossed);
  StoppingRule rule(config.tol_rel_obj, config.max_iterations, config.eval_elbo);
  // The natural optimizer's own rule: q has stopped moving (tol_step; off when null).
  std::optional<NaturalConvergence> settled;
  if (natural && config.tol_step) settled.emplace(*config.tol_step);

  long first = 1;
  if (resume) {
    q.params() = resume->params;
    if (natural)
      natural_gradient.set_state(resume->optimizer_state);
    else
      optimizer->set_state(resume->optimizer_state);
    rule.set_state(resume->stopping_state);
    if (settled && !resume->convergence_state.empty()) settled->set_state(resume->convergence_state);
    result.trace = resume->trace;
    result.redrawn = resume->redrawn;
    result.iterations = resume->iteration;
    first = resume->iteration + 1;
  } else if (natural) {
    if (const Eigen::VectorXd m0 = density.initial_mean(); m0.size() == q.dim()) q.params().head(q.dim()) = m0;
    q.set_initial_scale(0.1);
    start_group_effects_at_their_sd(q, density.scale_columns());
    if (config.start_at_mode) {
      // Laplace's approximation as the start (init: mode), the mode sought from q's start (the
      // response's scale: initial_mean); q keeps that start where the mode is not usable.
      const Eigen::VectorXd from = q.params().head(q.dim());
      const ModeFit mode = find_mode(density, from);
      const bool used = mode.ok && set_to_laplace(q, mode);
      logger.debug("init: posterior mode after " + std::to_string(mode.iterations) + " Newton iterations (" +
                   std::to_string(mode.batches) + " batches), log p " + std::to_string(mode.log_density) +
                   (used ? "; q starts at Laplace's approximation there" : "; not converged: q keeps its start"));
    }
  }
  auto state = [&](long t) {
    AdviState s;
    s.iteration = t;
    s.seconds = elapsed();
    s.params = q.params();
    s.optimizer_state = natural ? natural_gradient.state() : optimizer->state();
    s.stopping_state = rule.state();
    if (settled) s.convergence_state = settled->state();
    s.trace = result.trace;
    s.redrawn = result.redrawn;
    s.eta = result.eta;
    return s;
  };

  Eigen::VectorXd grad;
  std::unique_ptr<Family> before;  // q before the step, for the natural rule
  for (long t = first; t <= config.max_iterations; ++t) {
    if (observer && observer->stop_requested()) {
      result.interrupted = true;
      observer->on_checkpoint(state(t - 1));
      break;
    }
    // The natural rule reads the draws and their gradients (the sparse step with the prior in closed
    // form evaluates the likelihood's own); the others, the ELBO's gradient.
    const ElboEstimate step = natural ? estimator.draws(q, config.draws_per_step, rng::Purpose::gradient,
                                                        static_cast<std::uint64_t>(t),
                                                        !(options.sparse_likelihood && options.sparse_prior))
                                      : estimator.gradient(q, config.draws_per_step, rng::Purpose::gradient,
                                                           static_cast<std::uint64_t>(t), grad);
    result.redrawn += step.redrawn;
    if (settled) {
      if (!before)
        before = q.clone();
      else
        before->params() = q.params();
    }
    if (natural)
      natural_gradient.step(q, estimator.last_eps(), estimator.last_grad_log_p(), t, &density,
                            &estimator.last_zeta());
    else
      optimizer->step(q.params(), grad, t);
    result.iterations = t;
    if (!q.is_finite())
      throw inference_error("/inference",
                            "the approximation diverged at iteration " + std::to_string(t) +
                                " (its parameters are no longer finite); lower the learning rate or "
                                "standardize the features");
    if (observer) observer->on_iteration(t, config.max_iterations);
    if (t % config.eval_elbo == 0) {
      const ElboEstimate e =
          estimator.elbo(q, config.elbo_samples, rng::Purpose::elbo, static_cast<std::uint64_t>(t));
      result.redrawn += e.redrawn;
      TraceRow row{t, elapsed(), e.value, rule.record(e.value)};
      result.trace.push_back(row);
      if (observer) observer->on_elbo(row, config.max_iterations);
      if (rule.converged()) {
        result.converged = true;
        result.convergence = rule.reason();
        break;
      }
    }
    if (settled) {
      const double move = natural_step_move(*before, q) / natural_gradient.rho(t);
      logger.debug("natural step " + std::to_string(t) + ": move / rho " + std::to_string(move));
      if (settled->record(t, move)) {
        result.converged = true;
        result.convergence = settled->reason();
        break;
      }
    }
    if (observer && options.checkpoint_every > 0 && t % options.checkpoint_every == 0 && t < config.max_iterations)
      observer->on_checkpoint(state(t));
  }
  if (settled && !result.converged && !result.interrupted)
    result.convergence = "ran to max_iterations (" + std::to_string(result.iterations) +
                         "): the natural steps did not stay within tol_step of the optimum they estimate "
                         "(their Monte Carlo noise is larger)";
  if (result.redrawn > 0)
    logger.info(std::to_string(result.redrawn) +
                " draws had a non-finite log density or gradient and were redrawn");
  return result;
}

}  // namespace bvi::vi
