#include "inference/exact/natural_step.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "inference/math/step_bound.hpp"

namespace bvi::vi::exact {

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

namespace {

// The most by which an Anderson-mixed meanfield point may scale a precision away from the plain
// proposal's (sds by 4): anderson_trial.
constexpr double kMaxPrecisionShift = 16.0;

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

// The sparse family's proposal: fullrank's, with every matrix on the pattern. Lambda' = -2 G is
// zero off the pattern (G is), the Newton step solves Lambda' step = dE/dmean by the sparse factor,
// and the residuals are taken in q's units through its marginal sds (the diagonal of Sigma):
// |sd_j dE/dm_j| and |Lambda'_ik - Lambda_ik| sd_i sd_k.
Proposal propose_sparse(const GaussianQ& q, const ExpectationGradient& g, const ExactOptions& o) {
  Proposal p;
  const BlockPattern& pat = q.pattern();
  const Index P = q.dim();
  const Eigen::VectorXd raw = -2.0 * g.d_sparse;
  Eigen::VectorXd sd(P);
  for (Index j = 0; j < P; ++j) sd[j] = std::sqrt(q.var(j));
  p.residual = (sd.array() * g.d_mean.array()).abs().maxCoeff();
  pat.for_each_slot([&](Index i, Index k, Index s) {
    p.residual = std::max(p.residual, std::abs(raw[s] - q.prec[s]) * sd[i] * sd[k]);
  });
  // Not positive definite where E is not concave: move only part of the way towards it.
  SparseFactor& f = *q.factor;
  double t = 1.0;
  bool ok = false;
  for (int i = 0; i < 30 && !ok; ++i, t *= 0.5) {
    p.prec_new = q.prec + t * (raw - q.prec);
    ok = f.factorize(p.prec_new);
  }
  if (!ok) {
    p.prec_new = q.prec;
    if (!f.factorize(p.prec_new)) throw std::logic_error("sparse family: the current precision is not positive definite");
  }
  p.step = f.solve(g.d_mean);
  bound_step(p.step, o.max_mean_step);
  // The move in q's units, for telling oscillation from steady progress.
  p.direction.resize(P + pat.size());
  p.direction.head(P) = (p.step.array() / sd.array()).matrix();
  pat.for_each_slot(
      [&](Index i, Index k, Index s) { p.direction[P + s] = (p.prec_new[s] - q.prec[s]) * sd[i] * sd[k]; });
  return p;
}

}  // namespace

Proposal propose(ExpectedLogDensity& density, const GaussianQ& q, const ExpectationGradient& g,
                 const ExactOptions& o, double forcing) {
  Proposal p;
  const Index P = q.dim();
  if (q.sparse()) return propose_sparse(q, g, o);
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

GaussianQ along(const GaussianQ& q, const Proposal& p, double t) {
  GaussianQ out;
  out.dense = q.dense;
  out.mean = q.mean + t * p.step;
  if (q.sparse()) {
    out.factor = q.factor;
    // A convex combination of positive definite matrices is one.
    if (!out.set_precision((1.0 - t) * q.prec + t * p.prec_new))
      throw std::logic_error("sparse family: an interpolated precision is not positive definite");
    return out;
  }
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

bool anderson_trial(ExpectedLogDensity& density, const GaussianQ& q, const Proposal& p, const ExactOptions& o,
                    long t, double elbo, double slack, Anderson& anderson, Eigen::VectorXd& scale_ref,
                    GaussianQ& trial, ExpectationGradient& g_trial, double& trial_elbo) {
  const Index P = q.dim();
  bool accepted = false;
  if (q.sparse()) {
    // The sparse family: the mean in units of the marginal sds at the history's start (scale_ref)
    // and the precision's values on the pattern scaled by them (Lambda_ik s_i s_k, about 1 on the
    // diagonal); a combination that is no precision matrix is not tried.
    const BlockPattern& pat = q.pattern();
    if (anderson.empty() && (scale_ref.size() != P || t % 25 == 0)) {
      anderson.reset();
      scale_ref.resize(P);
      for (Index j = 0; j < P; ++j) scale_ref[j] = std::sqrt(q.var(j));
    }
    const Index V = pat.size();
    Eigen::VectorXd x(P + V), gx(P + V);
    x.head(P) = (q.mean.array() / scale_ref.array()).matrix();
    gx.head(P) = ((q.mean + p.step).array() / scale_ref.array()).matrix();
    pat.for_each_slot([&](Index i, Index k, Index s) {
      const double unit = scale_ref[i] * scale_ref[k];
      x[P + s] = q.prec[s] * unit;
      gx[P + s] = p.prec_new[s] * unit;
    });
    const Eigen::VectorXd xn = anderson.next(x, gx - x);
    const bool mixed = !anderson.empty();
    bool within = mixed && xn.allFinite();
    if (within) {
      trial = GaussianQ{};
      trial.factor = q.factor;
      trial.mean = (xn.head(P).array() * scale_ref.array()).matrix();
      if (o.max_mean_step.size() == P)
        for (Index j = 0; j < P && within; ++j) within = std::abs(trial.mean[j] - q.mean[j]) <= o.max_mean_step[j];
      Eigen::VectorXd prec(V);
      pat.for_each_slot([&](Index i, Index k, Index s) { prec[s] = xn[P + s] / (scale_ref[i] * scale_ref[k]); });
      within = within && trial.set_precision(std::move(prec));
    }
    if (within) {
      trial_elbo = density.evaluate(trial, &g_trial) + trial.entropy();
      accepted = std::isfinite(trial_elbo) && trial_elbo >= elbo - slack;
    }
    if (mixed && !accepted) anderson.reset();
    return accepted;
  }
  if (!q.dense) {
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
    // Nor a mixed point whose precisions stray from the plain proposal's by more than a factor
    // kMaxPrecisionShift: an extrapolation the history cannot support. A logistic fit (10^5 x 20)
    // started at logit(mean y) mixed its sds up a hundredfold, from 0.01 to 1, in its third
    // iteration, and that point's pass, every row then wide enough for adaptive quadrature, took
    // 1.1 s where the fit's other 12 took 0.2 s together, before the point was rejected.
    for (Index j = P; j < 2 * P && within; ++j)
      within = std::abs(xn[j] - gx[j]) <= std::log(kMaxPrecisionShift);
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
  } else {
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
  }
  return accepted;
}

}  // namespace bvi::vi::exact
