#include "inference/exact/exact_vi.hpp"

#include <Eigen/Cholesky>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

#include "common/error.hpp"
#include "inference/exact/anderson.hpp"
#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"
#include "inference/families/structured.hpp"

namespace bvi::vi {

GaussianQ to_gaussian(const Family& q) {
  GaussianQ g;
  g.mean = q.mean();
  if (const auto* fr = dynamic_cast<const FullRank*>(&q)) {
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
  if (auto* fr = dynamic_cast<FullRank*>(&q)) {
    fr->set_cholesky(g.chol);
  } else if (auto* st = dynamic_cast<Structured*>(&q)) {
    for (Index j = 0; j < g.dim(); ++j) st->omega()[j] = std::log(g.sd[j]);
    st->b() = g.b;
  } else if (auto* mf = dynamic_cast<MeanField*>(&q)) {
    for (Index j = 0; j < g.dim(); ++j) mf->omega()[j] = std::log(g.sd[j]);  // as canonicalize() does
  }
}

namespace {

// q as the family stores it: meanfield keeps log sd, fullrank the log of L's diagonal, and
// exp(log(x)) need not give back the last bit of x. Every q the optimizer evaluates goes through
// this first, so the state a checkpoint saves is exactly the state the run continues from.
// (A value x is representable when exp(log(x)) == x; one or two round trips reach one.)
void canonicalize(GaussianQ& q) {
  // std::exp and std::log element by element, as the families convert (meanfield.hpp, fullrank.cpp).
  auto fix = [](auto&& v) {
    for (Eigen::Index j = 0; j < v.size(); ++j)
      for (int k = 0; k < 8; ++k) {
        const double next = std::exp(std::log(v[j]));
        if (next == v[j]) break;
        v[j] = next;
      }
  };
  if (q.dense)
    fix(q.chol.diagonal());
  else
    fix(q.sd);
}

// One natural-gradient proposal from q and the gradient there.
struct Proposal {
  Eigen::VectorXd step;                // the mean's Newton step
  Eigen::VectorXd lambda, lambda_new;  // meanfield: precisions now and proposed (structured: given the parent)
  Eigen::VectorXd b_new;               // structured: the proposed ties to the parents
  Eigen::MatrixXd Lambda, Lambda_new;  // fullrank
  double residual = 0.0;
  int cg_iterations = 0;
  // Fullrank: the proposed move in q's own units (L' step and L' (Lambda' - Lambda) L), for
  // telling oscillation from steady progress.
  Eigen::VectorXd direction;
};

// Solves H x = b, H = -d^2E/dmean^2 applied by the density, preconditioned by diag(M), to a
// relative residual `forcing`; stops early on a direction of non-positive curvature (where E is
// not concave the Newton step is not an ascent direction beyond it). Starts from M^-1 b.
Eigen::VectorXd conjugate_gradients(ExpectedLogDensity& density, const Eigen::VectorXd& b,
                                    const Eigen::VectorXd& M, double forcing, int max_iterations,
                                    int* iterations) {
  Eigen::VectorXd x = (b.array() / M.array()).matrix();
  Eigen::VectorXd Hv;
  density.hessian_times(x, Hv);
  Eigen::VectorXd r = b + Hv;  // b - H x, H = -hessian
  Eigen::VectorXd z = (r.array() / M.array()).matrix();
  Eigen::VectorXd p = z;
  double rz = r.dot(z);
  const double target = forcing * forcing * b.dot((b.array() / M.array()).matrix());
  int k = 0;
  for (; k < max_iterations && rz > target; ++k) {
    density.hessian_times(p, Hv);
    const double pHp = -p.dot(Hv);
    if (!(pHp > 0.0)) break;
    const double alpha = rz / pHp;
    x += alpha * p;
    r += alpha * Hv;  // r -= alpha H p
    z = (r.array() / M.array()).matrix();
    const double rz_new = r.dot(z);
    p = z + (rz_new / rz) * p;
    rz = rz_new;
  }
  *iterations = k + 1;
  return x;
}

// Shortens `step` so that no coordinate moves more than its bound.
void bound_step(Eigen::VectorXd& step, const Eigen::VectorXd& bounds) {
  if (bounds.size() != step.size()) return;
  double factor = 1.0;
  for (Index j = 0; j < step.size(); ++j) factor = std::max(factor, std::abs(step[j]) / bounds[j]);
  if (factor > 1.0) step /= factor;
}

Proposal propose(ExpectedLogDensity& density, const GaussianQ& q, const ExpectationGradient& g,
                 const ExactOptions& o, double forcing) {
  Proposal p;
  const Index P = q.dim();
  if (!q.dense) {
    p.lambda = q.sd.array().square().inverse().matrix();
    Eigen::VectorXd raw = -2.0 * g.d_var;  // H_jj, H = -E[hessian]
    p.residual = 0.0;
    if (q.structured()) {
      // The structured family's fixed point (its ELBO's stationary conditions; siblings share no
      // row or prior term, so H has no sibling entries): a child j of p is tied by
      // b_j = -H_pj / H_jj with conditional precision H_jj, and its parent's precision is the
      // Schur complement H_pp - sum_j H_pj^2 / H_jj.
      p.b_new = q.b;
      Eigen::VectorXd schur = Eigen::VectorXd::Zero(P);
      for (Index j = 0; j < P; ++j) {
        const Index pj = q.parent_of(j);
        if (pj < 0 || !(raw[j] > 0.0)) continue;
        const double H_pj = -2.0 * g.d_parent[j];
        p.b_new[j] = -H_pj / raw[j];
        schur[pj] += H_pj * H_pj / raw[j];
        p.residual = std::max(p.residual, std::abs(p.b_new[j] - q.b[j]) * q.sd[pj] / q.sd[j]);
      }
      raw -= schur;
    }
    for (Index j = 0; j < P; ++j)
      p.residual =
          std::max({p.residual, std::abs(std::sqrt(q.var(j)) * g.d_mean[j]), std::abs(raw[j] / p.lambda[j] - 1.0)});
    // Where E is not concave in a coordinate its curvature can be small or of the wrong sign: a
    // precision may at most quarter in one step.
    p.lambda_new = raw;
    for (Index j = 0; j < P; ++j)
      if (!(raw[j] > 0.25 * p.lambda[j])) p.lambda_new[j] = 0.25 * p.lambda[j];
    p.step =
        conjugate_gradients(density, g.d_mean, p.lambda_new, forcing, o.max_cg_iterations, &p.cg_iterations);
    bound_step(p.step, o.max_mean_step);
    // No direction: meanfield's iteration is left to Anderson acceleration, which takes care of
    // its slow and its oscillating modes alike (halving its steps as well measured slower).
    return p;
  }
  const Eigen::MatrixXd& L = q.chol;
  const Eigen::MatrixXd Linv = L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(P, P));
  p.Lambda = Linv.transpose() * Linv;
  Eigen::MatrixXd raw = -(g.d_cov + g.d_cov.transpose());  // -2 G, symmetrized
  const Eigen::VectorXd a = L.transpose() * g.d_mean;
  Eigen::MatrixXd B = L.transpose() * raw * L;
  B.diagonal().array() -= 1.0;
  p.residual = std::max(a.cwiseAbs().maxCoeff(), B.cwiseAbs().maxCoeff());
  // Not positive definite where E is not concave: move only part of the way towards it.
  double t = 1.0;
  Eigen::LLT<Eigen::MatrixXd> llt;
  for (int i = 0; i < 30; ++i, t *= 0.5) {
    p.Lambda_new = p.Lambda + t * (raw - p.Lambda);
    llt.compute(p.Lambda_new);
    if (llt.info() == Eigen::Success) break;
  }
  if (llt.info() != Eigen::Success) {
    p.Lambda_new = p.Lambda;
    llt.compute(p.Lambda_new);
  }
  p.step = llt.solve(g.d_mean);
  bound_step(p.step, o.max_mean_step);
  const Eigen::MatrixXd C = L.transpose() * (p.Lambda_new - p.Lambda) * L;
  p.direction.resize(P + P * P);
  p.direction << L.transpose() * p.step, Eigen::Map<const Eigen::VectorXd>(C.data(), P * P);
  return p;
}

// q at fraction t of the way from q to the proposal (the precisions interpolated).
GaussianQ along(const GaussianQ& q, const Proposal& p, double t) {
  GaussianQ out;
  out.dense = q.dense;
  out.mean = q.mean + t * p.step;
  if (!q.dense) {
    out.sd = ((1.0 - t) * p.lambda + t * p.lambda_new).array().rsqrt().matrix();
    if (q.structured()) {
      out.b = (1.0 - t) * q.b + t * p.b_new;
      out.parent = q.parent;
    }
    canonicalize(out);
    return out;
  }
  const Eigen::MatrixXd Lambda = (1.0 - t) * p.Lambda + t * p.Lambda_new;
  const Index P = q.dim();
  const Eigen::MatrixXd Sigma = Lambda.llt().solve(Eigen::MatrixXd::Identity(P, P));
  out.chol = Eigen::LLT<Eigen::MatrixXd>(0.5 * (Sigma + Sigma.transpose())).matrixL();
  canonicalize(out);
  return out;
}

std::string format(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

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
  if (o.structured) {
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
    // A group effect starts with its group's sd as its own (sd_F = exp of its parent's mean):
    // with q's sd at o.initial_sd and the effects at 0, the prior alone would pull every log sd
    // down, and from there the iteration climbs back only slowly (a few rows per group: some
    // hundreds of iterations).
    const std::vector<Index> parents = density.parents();
    auto initial_sd = [&](Index j) {
      const Index pj = static_cast<Index>(parents.size()) == P ? parents[static_cast<std::size_t>(j)] : -1;
      return pj < 0 ? o.initial_sd : std::exp(initial_mean[pj]);
    };
    if (o.dense) {
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
  Anderson anderson(5);
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
  for (long t = first; t <= o.max_iterations; ++t) {
    if (observer && observer->stop_requested()) {
      run.interrupted = true;
      observer->on_checkpoint(state(t - 1));
      break;
    }
    const Proposal p = propose(density, q, g, o, forcing);
    result.grad_residual = p.residual;
    if (p.residual <= o.tol_grad) {
      run.converged = true;
      run.convergence =
          "natural-gradient residual " + format(p.residual) + " below tol_grad " + format(o.tol_grad);
      break;
    }
    if (last_direction.size() == p.direction.size()) {
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
    // Meanfield with full steps: try the Anderson-accelerated point first.
    if (!q.dense && max_step == 1.0) {
      if (anderson.empty() && (scale_ref.size() != P || t % 25 == 0)) {
        anderson.reset();
        scale_ref = q.sd;
      }
      // Structured: the ties b follow, in units of sd_p / sd_j at the reference.
      const Index width = q.structured() ? 3 * P : 2 * P;
      Eigen::VectorXd x(width), gx(width);
      x.head(2 * P) << (q.mean.array() / scale_ref.array()).matrix(), p.lambda.array().log().matrix();
      gx.head(2 * P) << ((q.mean + p.step).array() / scale_ref.array()).matrix(), p.lambda_new.array().log().matrix();
      if (q.structured())
        for (Index j = 0; j < P; ++j) {
          const Index pj = q.parent_of(j);
          const double unit = pj < 0 ? 0.0 : scale_ref[pj] / scale_ref[j];
          x[2 * P + j] = q.b[j] * unit;
          gx[2 * P + j] = p.b_new[j] * unit;
        }
      const Eigen::VectorXd xn = anderson.next(x, gx - x);
      bool within = xn.allFinite();
      if (o.max_mean_step.size() == P)
        for (Index j = 0; j < P && within; ++j)
          within = std::abs(xn[j] * scale_ref[j] - q.mean[j]) <= o.max_mean_step[j];
      if (!anderson.empty() && within) {
        trial.dense = false;
        trial.mean = (xn.head(P).array() * scale_ref.array()).matrix();
        trial.sd = (-0.5 * xn.segment(P, P).array()).exp().matrix();
        if (q.structured()) {
          trial.parent = q.parent;
          trial.b = Eigen::VectorXd::Zero(P);
          for (Index j = 0; j < P; ++j) {
            const Index pj = q.parent_of(j);
            if (pj >= 0) trial.b[j] = xn[2 * P + j] * scale_ref[j] / scale_ref[pj];
          }
        }
        canonicalize(trial);
        trial_elbo = density.evaluate(trial, &g_trial) + trial.entropy();
        accepted = std::isfinite(trial_elbo) && trial_elbo >= elbo - slack;
        if (!accepted) anderson.reset();
      }
    } else if (q.dense && max_step == 1.0) {
      // Fullrank: the same in whitened coordinates, L0^-1 mean and the lower triangle of
      // L0' Lambda L0, L0 the Cholesky factor when the history began (kept, flattened, in
      // scale_ref); a combination that is no precision matrix is not tried.
      if (anderson.empty() && (scale_ref.size() != P * P || t % 25 == 0)) {
        anderson.reset();
        scale_ref = Eigen::Map<const Eigen::VectorXd>(q.chol.data(), P * P);
      }
      const Eigen::Map<const Eigen::MatrixXd> L0(scale_ref.data(), P, P);
      const auto L0t = L0.triangularView<Eigen::Lower>();
      const Index tri = P * (P + 1) / 2;
      Eigen::VectorXd x(P + tri), gx(P + tri);
      auto whiten = [&](const Eigen::VectorXd& mean, const Eigen::MatrixXd& Lambda, Eigen::VectorXd& out) {
        out.head(P) = L0t.solve(mean);
        const Eigen::MatrixXd M = L0.transpose() * Lambda * L0;
        Index at = P;
        for (Index c = 0; c < P; ++c)
          for (Index r = c; r < P; ++r) out[at++] = M(r, c);
      };
      whiten(q.mean, p.Lambda, x);
      whiten(q.mean + p.step, p.Lambda_new, gx);
      const Eigen::VectorXd xn = anderson.next(x, gx - x);
      const bool mixed = !anderson.empty();  // else xn is the plain proposal: nothing to try
      bool within = xn.allFinite() && mixed;
      Eigen::VectorXd mean_n;
      Eigen::MatrixXd M = Eigen::MatrixXd::Zero(P, P);
      if (within) {
        mean_n = L0 * xn.head(P);
        if (o.max_mean_step.size() == P)
          for (Index j = 0; j < P && within; ++j) within = std::abs(mean_n[j] - q.mean[j]) <= o.max_mean_step[j];
        Index at = P;
        for (Index c = 0; c < P; ++c)
          for (Index r = c; r < P; ++r) M(r, c) = M(c, r) = xn[at++];
      }
      Eigen::LLT<Eigen::MatrixXd> llt;
      if (within) {
        llt.compute(M);
        within = llt.info() == Eigen::Success;
      }
      if (within) {
        // Sigma = Lambda^-1 = L0 M^-1 L0'.
        const Eigen::MatrixXd Minv = llt.solve(Eigen::MatrixXd::Identity(P, P));
        const Eigen::MatrixXd Sigma = L0 * Minv * L0.transpose();
        Eigen::LLT<Eigen::MatrixXd> chol(0.5 * (Sigma + Sigma.transpose()));
        within = chol.info() == Eigen::Success;
        if (within) {
          trial.dense = true;
          trial.mean = mean_n;
          trial.chol = chol.matrixL();
          canonicalize(trial);
          trial_elbo = density.evaluate(trial, &g_trial) + trial.entropy();
          accepted = std::isfinite(trial_elbo) && trial_elbo >= elbo - slack;
        }
      }
      if (mixed && !accepted) anderson.reset();
    } else {
      anderson.reset();
    }
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
    const Proposal p = propose(density, q, g, o, forcing);
    result.grad_residual = p.residual;
    if (p.residual <= o.tol_grad) {
      run.converged = true;
      run.convergence =
          "natural-gradient residual " + format(p.residual) + " below tol_grad " + format(o.tol_grad);
    }
  }
  from_gaussian(q, *run.q);
  result.elbo = elbo;
  result.elbo_se = density.value_se();
  result.passes = passes_before + density.passes() - uncounted;
  return result;
}

}  // namespace bvi::vi
