#include "inference/exact/exact_vi.hpp"

#include <Eigen/Cholesky>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

#include "common/error.hpp"
#include "inference/exact/anderson.hpp"
#include "inference/exact/natural_step.hpp"
#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"
#include "inference/families/sparse_precision.hpp"
#include "inference/families/structured.hpp"

namespace bvi::vi {

GaussianQ to_gaussian(const Family& q) {
  GaussianQ g;
  g.mean = q.mean();
  if (const auto* sp = dynamic_cast<const SparsePrecision*>(&q)) {
    g.factor = std::make_shared<SparseFactor>(sp->shared_pattern());
    if (!g.set_precision(sp->precision()))
      throw std::runtime_error("sparse family: the precision is not positive definite");
  } else if (const auto* fr = dynamic_cast<const FullRank*>(&q)) {
    g.dense = true;
    g.chol = fr->cholesky();
  } else if (const auto* st = dynamic_cast<const Structured*>(&q)) {
    g.sd = st->conditional_sd();
    g.b = st->b();
    g.parent = &st->parent();
  } else {
    g.sd = q.marginal_sd();
  }
  return g;
}

void from_gaussian(const GaussianQ& g, Family& q) {
  q.params().head(q.dim()) = g.mean;
  if (auto* sp = dynamic_cast<SparsePrecision*>(&q)) {
    sp->precision() = g.prec;
  } else if (auto* fr = dynamic_cast<FullRank*>(&q)) {
    fr->set_cholesky(g.chol);
  } else if (auto* st = dynamic_cast<Structured*>(&q)) {
    for (Index j = 0; j < g.dim(); ++j) st->omega()[j] = std::log(g.sd[j]);
    st->b() = g.b;
  } else if (auto* mf = dynamic_cast<MeanField*>(&q)) {
    for (Index j = 0; j < g.dim(); ++j) mf->omega()[j] = std::log(g.sd[j]);  // as canonicalize() does
  }
}

using namespace exact;

namespace {
constexpr int kSparseAndersonMemory = 10;
}

bool exact_state_fits(const std::vector<double>& o, Index P, const std::string& family, Index pattern_size) {
  if (o.empty()) return true;
  const bool dense = family == "fullrank", structured = family == "structured", sparse = family == "sparse";
  // A count read from the state: a whole number in [0, limit].
  auto count = [](double x, double limit) { return x >= 0 && x <= limit && x == std::floor(x); };
  const double p = static_cast<double>(P);
  if (o.size() < 3 || !count(o[0], 1e15) || !(o[1] >= 1.0 / 1024.0 && o[1] <= 1.0)) return false;
  // The last direction: fullrank's (P + P^2 numbers) or sparse's (P + the pattern's values) once it
  // has taken a step; the others have none.
  const double nd = o[2];
  const double sparse_width = p + static_cast<double>(pattern_size);  // the mean and the pattern's values
  if (!(nd == 0 || (dense && nd == p + p * p) || (sparse && nd == sparse_width))) return false;
  std::size_t at = 3 + static_cast<std::size_t>(nd);
  // The reference of Anderson's coordinates once its history began (natural_step.cpp): the sds
  // (P), or fullrank's Cholesky factor (P^2).
  if (o.size() < at + 1 || !(o[at] == 0 || o[at] == (dense ? p * p : p))) return false;
  at += 1 + static_cast<std::size_t>(o[at]);
  // Anderson's [n, k, 2 n + 2 k n numbers], k <= 5 steps (sparse: 10) in n coordinates: the means and log
  // precisions (2P), with the structured family's ties (3P), fullrank's whitened mean and
  // precision triangle (P + P(P + 1)/2), or sparse's scaled mean and precision (P + its values).
  if (o.size() < at + 2) return false;
  const double n = o[at], k = o[at + 1];
  const double width = dense ? p + p * (p + 1) / 2 : structured ? 3 * p : sparse ? sparse_width : 2 * p;
  if (!(n == 0 || n == width) || !count(k, sparse ? kSparseAndersonMemory : 5) || (n == 0 && k != 0)) return false;
  return o.size() - at == 2 + static_cast<std::size_t>(n) * (2 + 2 * static_cast<std::size_t>(k));
}

ExactResult run_exact(ExpectedLogDensity& density, const Eigen::VectorXd& initial_mean, const ExactOptions& o,
                      Logger& logger, RunObserver* observer, const RunOptions& run_options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const AdviState* resume = run_options.resume;
  const double seconds_before = resume ? resume->seconds : 0.0;
  auto elapsed = [&] { return seconds_before + std::chrono::duration<double>(Clock::now() - start).count(); };
  const Index P = density.dim();

  ExactResult result;
  AdviResult& run = result.run;
  if (o.sparse) {
    std::shared_ptr<const BlockPattern> pattern = density.sparse_pattern();
    if (!pattern) throw std::logic_error("run_exact: the density has no sparse pattern");
    run.q = std::make_unique<SparsePrecision>(std::move(pattern));
  } else if (o.structured) {
    std::vector<Index> parent = density.parents();
    if (static_cast<Index>(parent.size()) != P) parent.assign(static_cast<std::size_t>(P), -1);
    run.q = std::make_unique<Structured>(P, std::move(parent));
  } else {
    run.q = make_family(o.dense ? "fullrank" : "meanfield", P);
  }
  GaussianQ q;
  long first = 1;
  if (resume) {
    run.q->params() = resume->params;
    q = to_gaussian(*run.q);
    run.trace = resume->trace;
    run.iterations = resume->iteration;
    first = resume->iteration + 1;
  } else {
    q.dense = o.dense;
    q.mean = initial_mean;
    // A group effect starts with its group's sd as its own (sd_F = exp of its log sd's mean),
    // correlated factors' too: with q's sd at o.initial_sd and the effects at 0, the prior alone
    // would pull every log sd down, and from there the iteration climbs back only slowly (a few
    // rows per group: some hundreds of iterations; correlated slopes over 4000 groups: 170).
    const std::vector<Index> parents = density.scale_columns();
    auto initial_sd = [&](Index j) {
      const Index pj = static_cast<Index>(parents.size()) == P ? parents[static_cast<std::size_t>(j)] : -1;
      return pj < 0 ? o.initial_sd : std::exp(initial_mean[pj]);
    };
    if (o.sparse) {
      const auto& sp = static_cast<const SparsePrecision&>(*run.q);
      q.factor = std::make_shared<SparseFactor>(sp.shared_pattern());
      Eigen::VectorXd precision(P);
      for (Index j = 0; j < P; ++j) precision[j] = 1.0 / (initial_sd(j) * initial_sd(j));
      q.set_precision(sp.pattern().diagonal_matrix(precision));
    } else if (o.dense) {
      q.chol = Eigen::MatrixXd::Zero(P, P);
      for (Index j = 0; j < P; ++j) q.chol(j, j) = initial_sd(j);
    } else {
      q.sd.resize(P);
      for (Index j = 0; j < P; ++j) q.sd[j] = initial_sd(j);
      if (o.structured) {
        q.b = Eigen::VectorXd::Zero(P);
        q.parent = &static_cast<const Structured&>(*run.q).parent();
      }
    }
    canonicalize(q);
  }
  ExpectationGradient g, g_trial;
  // The longest step tried. Where E is not concave (hierarchical priors) the fixed point can be
  // a repeller along some direction: the iteration overshoots it by a factor -lambda > 1 and
  // oscillates, consecutive proposals pointing in opposite directions while the ELBO stays flat.
  // Each such reversal halves the step, which turns the factor into |1 - t (1 - lambda)| < 1;
  // proposals that keep their direction (steady, if slow, progress) lengthen it again.
  double max_step = 1.0;
  Eigen::VectorXd last_direction;
  // Meanfield: Anderson acceleration of the fixed point in (mean / scale_ref, log precision),
  // scale_ref the sds when its history began.
  // The sparse family mixes the last 10 (its correlated effects' slow modes: 5 took 117
  // iterations on a 200-group logistic (1 + x + z | g), 10 took 76, 20 hardly fewer).
  Anderson anderson(o.sparse ? kSparseAndersonMemory : 5);
  Eigen::VectorXd scale_ref;
  // The optimizer's own state, for checkpoints: [passes so far, max_step, |direction|, direction,
  // |scale_ref|, scale_ref, Anderson's history], so that a resumed run takes the same steps.
  long passes_before = 0, uncounted = 0;  // a resumed run's first pass repeats the checkpoint's last one
  auto save = [&] {
    std::vector<double> o{static_cast<double>(passes_before + density.passes() - uncounted), max_step,
                          static_cast<double>(last_direction.size())};
    o.insert(o.end(), last_direction.data(), last_direction.data() + last_direction.size());
    o.push_back(static_cast<double>(scale_ref.size()));
    o.insert(o.end(), scale_ref.data(), scale_ref.data() + scale_ref.size());
    const std::vector<double> a = anderson.state();
    o.insert(o.end(), a.begin(), a.end());
    return o;
  };
  if (resume && !resume->optimizer_state.empty()) {
    const std::vector<double>& o = resume->optimizer_state;
    std::size_t at = 0;
    auto need = [&](std::size_t n) {
      if (at + n > o.size()) throw config_error("--resume", "the checkpoint's optimizer state is damaged");
    };
    need(3);
    passes_before = static_cast<long>(o[at++]);
    max_step = o[at++];
    const auto nd = static_cast<Index>(o[at++]);
    need(static_cast<std::size_t>(nd) + 1);
    last_direction = Eigen::Map<const Eigen::VectorXd>(o.data() + at, nd);
    at += static_cast<std::size_t>(nd);
    const auto ns = static_cast<Index>(o[at++]);
    need(static_cast<std::size_t>(ns));
    scale_ref = Eigen::Map<const Eigen::VectorXd>(o.data() + at, ns);
    at += static_cast<std::size_t>(ns);
    try {
      anderson.set_state(std::vector<double>(o.begin() + static_cast<std::ptrdiff_t>(at), o.end()));
    } catch (const std::invalid_argument&) {
      throw config_error("--resume", "the checkpoint's optimizer state is damaged");
    }
  }
  auto state = [&](long t) {
    from_gaussian(q, *run.q);
    AdviState s;
    s.iteration = t;
    s.seconds = elapsed();
    s.params = run.q->params();
    s.optimizer_state = save();
    s.trace = run.trace;
    return s;
  };
  double elbo = density.evaluate(q, &g) + q.entropy();
  if (resume) uncounted = density.passes();
  if (!std::isfinite(elbo))
    throw inference_error("/inference", "the expected log density is not finite at the starting point (" +
                                            format(elbo) + "); check the priors and the data");
  // Meanfield's Newton systems are solved to 10 % (inexact Newton): the precisions converge
  // linearly, by about a digit per iteration, so solving the mean's system more tightly buys no
  // iterations (measured on the validation suite: 0.1 takes the fewest passes over the data).
  const double forcing = 0.1;
  // A mean can move only by whole spacings of doubles (ulps): a residual that asks for less is
  // below what double precision resolves at that mean, and no iteration lowers it further. With
  // a normal response near 10^8 and sd 5 on 2e4 rows, the intercept's sd is 0.007 and an ulp of
  // 10^8 is 2e-6 of it: the residual hovered near 1e-6 to 1e-5 for 200 iterations. So the
  // tolerance is at least kUlps ulps of every mean in its sd (1e-12 and less for means near 1
  // with sds above 1e-3: tol_grad's 1e-8 decides there). At 4 ulps fullrank hovered above it for
  // 126 iterations; at 16 it stops at the first dip (41), within 1.1e-5 sd of the fit to the
  // response less 10^8.
  constexpr double kUlps = 16.0;
  auto resolution = [&] {
    double r = 0.0;
    for (Index j = 0; j < q.dim(); ++j) {
      const double m = std::abs(q.mean[j]), ulp = std::nextafter(m, std::numeric_limits<double>::infinity()) - m;
      r = std::max(r, ulp / std::sqrt(q.var(j)));
    }
    return kUlps * r;
  };
  auto converged = [&](const Proposal& p) {
    result.grad_residual = p.residual;
    if (p.residual <= o.tol_grad) {
      run.converged = true;
      run.convergence = "natural-gradient residual " + format(p.residual) + " below tol_grad " + format(o.tol_grad);
      return true;
    }
    const double floor = resolution();
    if (!(p.residual <= floor)) return false;
    run.converged = true;
    run.convergence = "natural-gradient residual " + format(p.residual) + " below " + format(floor) +
                      ", " + format(kUlps) + " spacings of doubles at the means in their sds (tol_grad " + format(o.tol_grad) +
                      " is finer than double precision resolves here)";
    return true;
  };
  for (long t = first; t <= o.max_iterations; ++t) {
    if (observer && observer->stop_requested()) {
      run.interrupted = true;
      observer->on_checkpoint(state(t - 1));
      break;
    }
    const Proposal p = propose(density, q, g, o, forcing);
    if (converged(p)) break;
    // The sparse family leaves oscillation to Anderson acceleration, as meanfield does: an
    // accelerated iteration's proposals reverse often while it converges, and each reversal
    // halved the step and emptied Anderson's history (a 200-group logistic (1 + x | g): 50
    // iterations with it, 35 without; the reference multilevel problems 20 to 30 against 16 to
    // 21). A step still shortens along the line when the ELBO would fall.
    if (o.sparse) {
      max_step = 1.0;
    } else if (last_direction.size() == p.direction.size()) {
      const double cosine =
          p.direction.dot(last_direction) / std::max(1e-300, p.direction.norm() * last_direction.norm());
      if (cosine < -0.3)
        max_step = std::max(max_step * 0.5, 1.0 / 1024.0);
      else if (cosine > 0.3)
        max_step = std::min(1.0, max_step * 2.0);
    }
    last_direction = p.direction;
    logger.debug("exact iteration " + std::to_string(t) + ": ELBO " + format(elbo) + ", residual " +
                 format(p.residual) + ", step " + format(max_step) + ", conjugate-gradient steps " +
                 std::to_string(p.cg_iterations));
    const double slack = 1e-12 * std::max(1.0, std::abs(elbo));
    double step = max_step, trial_elbo = -std::numeric_limits<double>::infinity();
    GaussianQ trial;
    bool accepted = false;
    // With full steps, the Anderson-mixed point first.
    if (max_step == 1.0)
      accepted = anderson_trial(density, q, p, o, t, elbo, slack, anderson, scale_ref, trial, g_trial, trial_elbo);
    else
      anderson.reset();
    for (int k = 0; k < 40 && !accepted; ++k, step *= 0.5) {
      trial = along(q, p, step);
      trial_elbo = density.evaluate(trial, &g_trial) + trial.entropy();
      if (std::isfinite(trial_elbo) && trial_elbo >= elbo - slack) {
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      // No point along the step is as good: the fixed point and the ELBO's own rounding have
      // met. Report where it stands rather than fail.
      run.convergence = "stopped: no step along the natural gradient improves the ELBO (residual " +
                        format(p.residual) + ")";
      logger.warn("the exact optimizer stopped at iteration " + std::to_string(t) + " with residual " +
                  format(p.residual) + " above tol_grad " + format(o.tol_grad) +
                  ": no step improves the ELBO any further");
      break;
    }
    const double previous = elbo;
    q = std::move(trial);
    std::swap(g, g_trial);
    elbo = trial_elbo;
    run.iterations = t;
    const double rel = std::abs(elbo - previous) / std::max(std::abs(elbo), 1e-300);
    TraceRow row{t, elapsed(), elbo, rel};
    run.trace.push_back(row);
    if (observer) {
      observer->on_iteration(t, o.max_iterations);
      observer->on_elbo(row, o.max_iterations);
    }
    if (o.tol_rel_obj && rel < *o.tol_rel_obj) {
      run.converged = true;
      run.convergence =
          "relative ELBO change " + format(rel) + " below tol_rel_obj " + format(*o.tol_rel_obj);
      break;
    }
    if (observer && run_options.checkpoint_every > 0 && t % run_options.checkpoint_every == 0 &&
        t < o.max_iterations)
      observer->on_checkpoint(state(t));
  }
  if (!run.converged && !run.interrupted && run.convergence.empty()) {
    converged(propose(density, q, g, o, forcing));
  }
  from_gaussian(q, *run.q);
  result.elbo = elbo;
  result.elbo_se = density.value_se();
  result.passes = passes_before + density.passes() - uncounted;
  return result;
}

}  // namespace bvi::vi
