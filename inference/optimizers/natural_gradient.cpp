#include "inference/optimizers/natural_gradient.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"
#include "inference/families/sparse_precision.hpp"
#include "inference/math/step_bound.hpp"
#include "inference/math/symmetrize.hpp"
#include "inference/optimizers/natural_sparse_step.hpp"

namespace bvi::vi {

namespace {

// The gradient draws g_s = grad log p(mu + C eps_s) regressed on eps_s by least squares:
//   g_s ~ a + B eps_s.
// By Stein's lemma the population slope is Cov(g, eps) = E[Jacobian of g w.r.t. eps] =
// E_q[grad^2 log p] C, and the intercept is E_q[grad log p]; the sample regression estimates
// both with far less noise than the plain averages (Price's estimator uses Cov(g, eps) with the
// sample covariance of eps replaced by its expectation, I): for a Gaussian posterior g is linear
// in eps and the regression is exact. It needs more draws than parameters; with fewer, the plain
// estimators are used.
struct GradientRegression {
  Eigen::VectorXd intercept;  // estimate of E_q[grad log p]
  Eigen::MatrixXd slope;      // estimate of E_q[grad^2 log p] C  (P x P)
};

GradientRegression regress(const Eigen::MatrixXd& g, const Eigen::MatrixXd& eps) {
  const Index S = g.rows(), P = g.cols();
  const Eigen::RowVectorXd gbar = g.colwise().mean(), ebar = eps.colwise().mean();
  const Eigen::MatrixXd gc = g.rowwise() - gbar, ec = eps.rowwise() - ebar;
  GradientRegression r;
  Eigen::MatrixXd cge = gc.transpose() * ec / static_cast<double>(S - 1);  // Cov(g, eps)
  if (S > 2 * P + 8) {
    const Eigen::MatrixXd cee = ec.transpose() * ec / static_cast<double>(S - 1);
    // slope = Cov(g, eps) Cov(eps)^-1
    r.slope = cee.llt().solve(cge.transpose()).transpose();
    r.intercept = gbar.transpose() - r.slope * ebar.transpose();
  } else {
    r.slope = std::move(cge);
    r.intercept = gbar.transpose();
  }
  return r;
}

// (1 - rho) Lambda + rho K, the plain average, when it is positive definite; otherwise the step
// is halved until it is (the noisy K can have negative directions even for a log-concave
// density). The average has no fixed-point bias, unlike a geometric one, and no overshoot,
// unlike the quadratic correction of Lin, Schmidt & Khan (2020), which multiplies a large
// increase of the precision instead of averaging it.
Eigen::MatrixXd average_precision(const Eigen::MatrixXd& lambda, const Eigen::MatrixXd& k, double rho) {
  for (int i = 0; i < 8; ++i, rho *= 0.5) {
    Eigen::MatrixXd out = (1.0 - rho) * lambda + rho * k;
    symmetrize(out);
    if (Eigen::LLT<Eigen::MatrixXd>(out).info() == Eigen::Success) return out;
  }
  return lambda;
}

// Shrinks a mean step so that its length in q's metric, sqrt(d^T Lambda d), is at most `radius`:
// a trust region in KL divergence (KL between normals differing only in the mean is half of it
// squared). Far from the optimum the curvature of directions no draw has explored yet is
// unknown, and a full Newton step along them can land where the log density is -inf.
void limit_step(Eigen::VectorXd& d, const Eigen::MatrixXd& lambda, double radius) {
  const double m = std::sqrt(std::max(0.0, d.dot(lambda * d)));
  if (m > radius) d *= radius / m;
}

// The same in a diagonal metric.
void limit_step(Eigen::VectorXd& d, const Eigen::ArrayXd& lambda_diagonal, double radius) {
  const double m = std::sqrt(std::max(0.0, (lambda_diagonal * d.array().square()).sum()));
  if (m > radius) d *= radius / m;
}

// Four marginal sds per coordinate, on average, per step.
double trust_radius(Index P) {
  return 4.0 * std::sqrt(static_cast<double>(P));
}

// Meanfield in O(S P): everything per coordinate, nothing P x P (neither here nor in the state).
// Coordinate j's gradient draws regressed on its own eps: g_sj ~ a_j + b_j eps_sj, with
// b_j = Cov(g_j, eps_j) / Var(eps_j) estimating E_q[d^2 log p / dz_j^2] sigma_j (Stein), so
// K_jj = -b_j / sigma_j is the curvature estimate; the precisions average towards it and the
// mean takes a damped Newton step, its direction solved by conjugate gradients on the Hessian at
// q's mean (newton_direction) preconditioned by that averaged diagonal curvature.
// The mean's Newton direction H^-1 b for H = -(Hessian of log p at q's mean), by conjugate
// gradients preconditioned with the diagonal curvature c: each product H v is a central
// difference of two gradients at mu +- h v (one batch of two draws, a pass over the data), so
// nothing P x P is formed and correlated coordinates move together as a full Newton step would
// move them. Returns the diagonal step b / c when a product is not finite, or from the start
// where the Hessian is not negative definite along the way (CG stops there).
// H v for H = -(Hessian of log p at mu): a central difference of two gradients, at a step of
// 1e-4 of q's sds along v (small against the curvature's variation, large against the
// gradients' rounding). False when a gradient is not finite.
bool hessian_times(LogDensity& density, const Eigen::VectorXd& mu, const Eigen::ArrayXd& sigma,
                   const Eigen::VectorXd& v, Eigen::VectorXd& out) {
  const Index P = mu.size();
  const double norm = (v.array() / sigma).matrix().norm();
  if (!(norm > 0.0)) {
    out.setZero(P);
    return true;
  }
  const double h = 1e-4 / norm;
  Eigen::MatrixXd theta(2, P), grad;
  Eigen::VectorXd lp(2);
  theta.row(0) = (mu + h * v).transpose();
  theta.row(1) = (mu - h * v).transpose();
  density.log_density(theta, lp, &grad);
  if (!grad.allFinite()) return false;
  out = -(grad.row(0) - grad.row(1)).transpose() / (2.0 * h);
  return true;
}

Eigen::VectorXd newton_direction(LogDensity& density, const Eigen::VectorXd& mu, const Eigen::ArrayXd& sigma,
                                 const Eigen::VectorXd& b, const Eigen::ArrayXd& c) {
  constexpr int kMaxIterations = 10;
  const Index P = mu.size();
  auto hessian_times = [&](const Eigen::VectorXd& v, Eigen::VectorXd& out) {
    return bvi::vi::hessian_times(density, mu, sigma, v, out);
  };
  Eigen::VectorXd x = (b.array() / c).matrix(), Hv(P);
  if (!hessian_times(x, Hv)) return x;
  Eigen::VectorXd r = b - Hv, z = (r.array() / c).matrix(), p = z;
  double rz = r.dot(z);
  const double target = 1e-2 * b.dot((b.array() / c).matrix());
  for (int k = 0; k < kMaxIterations && rz > target; ++k) {
    if (!hessian_times(p, Hv)) break;
    const double pHp = p.dot(Hv);
    if (!(pHp > 0.0)) break;
    const double alpha = rz / pHp;
    x += alpha * p;
    r -= alpha * Hv;
    z = (r.array() / c).matrix();
    const double rz_new = r.dot(z);
    p = z + (rz_new / rz) * p;
    rz = rz_new;
  }
  return x;
}

void meanfield_step(MeanField& q, Eigen::VectorXd& curvature, const Eigen::MatrixXd& eps,
                    const Eigen::MatrixXd& g, double rho, LogDensity* density,
                    const Eigen::VectorXd& bounds) {
  const Index P = q.dim(), S = g.rows();
  const Eigen::ArrayXd sigma = q.omega().array().exp();
  const Eigen::ArrayXd gbar = g.colwise().mean().transpose().array();
  const Eigen::ArrayXd ebar = eps.colwise().mean().transpose().array();
  Eigen::ArrayXd K(P);
  for (Index j = 0; j < P; ++j) {
    const Eigen::ArrayXd gc = g.col(j).array() - gbar[j], ec = eps.col(j).array() - ebar[j];
    const double cov = (gc * ec).sum() / static_cast<double>(S - 1);
    const double var = S > 8 ? (ec * ec).sum() / static_cast<double>(S - 1) : 1.0;
    K[j] = -(cov / var) / sigma[j];
  }
  const Eigen::ArrayXd lambda = sigma.square().inverse();
  if (curvature.size() != P) curvature = lambda.matrix();  // q's precision
  // The scales: the same average on each diagonal entry, lambda_i = 1 / sigma_i^2, halved for an
  // entry where a negative estimate would drive it to zero or below.
  Eigen::ArrayXd lambda_new = (1.0 - rho) * lambda + rho * K;
  for (Index i = 0; i < P; ++i) {
    double r = rho;
    while (!(lambda_new[i] > 0.25 * lambda[i]) && r > 1e-3) {
      r *= 0.5;
      lambda_new[i] = (1.0 - r) * lambda[i] + r * K[i];
    }
    if (!(lambda_new[i] > 0.25 * lambda[i])) lambda_new[i] = lambda[i];
  }
  // The mean gradient with a control variate from the curvature of the previous steps:
  //   g_cv = mean g + Lambda_prev (mean z - mu),  z - mu = sigma .* eps.
  // Exactly unbiased, since E[mean z - mu] = 0 and Lambda_prev does not depend on this step's
  // draws, and for a Gaussian posterior it cancels most of the noise.
  // With the density at hand the control variate uses the full curvature at the mean, H (z-bar
  // - mu) by one more Hessian-vector product: on correlated designs the off-diagonal curvature
  // carries most of the noise of the mean gradient, which the diagonal alone would leave.
  Eigen::ArrayXd gcv = gbar + curvature.array() * sigma * ebar;
  if (density) {
    Eigen::VectorXd hz;
    if (hessian_times(*density, q.params().head(P), sigma, (sigma * ebar).matrix(), hz))
      gcv = gbar + hz.array();
  }
  // The averaged curvature, each entry kept positive as the precisions are.
  Eigen::ArrayXd c = (1.0 - rho) * curvature.array() + rho * K;
  c = (c > 0.25 * curvature.array()).select(c, curvature.array());
  curvature = c.matrix();
  Eigen::VectorXd step =
      rho * (density ? newton_direction(*density, q.params().head(P), sigma, gcv.matrix(), c)
                     : Eigen::VectorXd((gcv / c).matrix()));
  limit_step(step, c, trust_radius(P));
  limit_step(step, lambda_new, trust_radius(P));  // and in q's own metric
  bound_step(step, bounds);
  q.params().head(P) += step;
  q.omega() = -0.5 * lambda_new.log().matrix();
}

void fullrank_step(FullRank& q, const Eigen::MatrixXd& eps, const Eigen::MatrixXd& g, double rho,
                   const Eigen::VectorXd& bounds) {
  const Index P = q.dim();
  const Eigen::MatrixXd L = q.cholesky();
  const GradientRegression reg = regress(g, eps);
  // K = -sym(slope L^-1)
  const Eigen::MatrixXd M = L.transpose().triangularView<Eigen::Upper>().solve(reg.slope.transpose());
  Eigen::MatrixXd K = -M.transpose();
  symmetrize(K);
  // Lambda = Sigma^-1 = L^-T L^-1
  const Eigen::MatrixXd Linv = L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(P, P));
  const Eigen::MatrixXd lambda = Linv.transpose() * Linv;
  // Control variate as for meanfield: g_cv = mean g + Lambda (mean z - mu), z - mu = L eps.
  const Eigen::VectorXd gcv =
      g.colwise().mean().transpose() + lambda * (L * eps.colwise().mean().transpose());
  Eigen::MatrixXd lambda_new = average_precision(lambda, K, rho);
  // q may widen by at most 2x in sd per step (Lambda_new >= Lambda / 4), as meanfield's
  // precisions may at most quarter: where log p is nearly flat along a direction at the start
  // (a hierarchical scale before the coefficients have moved: the estimated curvature of log tau
  // is near zero while the true one grows like exp(-2 log tau)), an unbounded update widens q so
  // far that its draws leave the region where the density is finite.
  {
    const Eigen::MatrixXd W = L.transpose() * lambda_new * L;  // whitened: eigenvalues = new/old precision
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(0.5 * (W + W.transpose()));
    if (eig.info() == Eigen::Success && eig.eigenvalues().minCoeff() < 0.25) {
      const Eigen::VectorXd clamped = eig.eigenvalues().cwiseMax(0.25);
      const Eigen::MatrixXd Wc = eig.eigenvectors() * clamped.asDiagonal() * eig.eigenvectors().transpose();
      lambda_new = Linv.transpose() * Wc * Linv;
      symmetrize(lambda_new);
    }
  }
  Eigen::LLT<Eigen::MatrixXd> llt(lambda_new);
  Eigen::VectorXd step = rho * llt.solve(gcv);
  limit_step(step, lambda_new, trust_radius(P));
  limit_step(step, lambda, trust_radius(P));  // and in the current q's metric
  bound_step(step, bounds);
  q.params().head(P) += step;
  const Eigen::MatrixXd sigma_new = llt.solve(Eigen::MatrixXd::Identity(P, P));
  q.set_cholesky(Eigen::LLT<Eigen::MatrixXd>(0.5 * (sigma_new + sigma_new.transpose())).matrixL());
}

}  // namespace

NaturalGradient::NaturalGradient(NaturalGradientSchedule schedule) : schedule_(schedule) {}
NaturalGradient::~NaturalGradient() = default;

double NaturalGradientSchedule::at(long t) const {
  return rho_min + (rho0 - rho_min) * std::exp2(-static_cast<double>(t - 1) / half_life);
}

void NaturalGradient::step(Family& q, const Eigen::MatrixXd& eps, const Eigen::MatrixXd& grad_logp, long t,
                           LogDensity* density, const Eigen::MatrixXd* zeta) {
  const double rho = schedule_.at(t);
  if (auto* mf = dynamic_cast<MeanField*>(&q))
    meanfield_step(*mf, diagonal_curvature_, eps, grad_logp, rho, density, max_mean_step_);
  else if (auto* fr = dynamic_cast<FullRank*>(&q))
    fullrank_step(*fr, eps, grad_logp, rho, max_mean_step_);
  else if (auto* sp = dynamic_cast<SparsePrecision*>(&q)) {
    if (!density) throw std::logic_error("natural gradient: the sparse family's step needs the density");
    if (!sparse_ || &sparse_->pattern() != &sp->pattern())
      sparse_ = std::make_unique<SparseNaturalStep>(sp->shared_pattern(), sparse_crossed_);
    Eigen::MatrixXd own;
    if (!zeta) {
      own.resize(eps.rows(), eps.cols());
      sp->transform(eps, own);
      zeta = &own;
    }
    // No control variate at the first step: its matrix is the sampled part's curvature as q knew it
    // before the draws, and at the start q knows none (its precision is the start's). With one,
    // the first step's noise along a direction the likelihood leaves flat (the cutpoints shifted
    // against a factor's effects) sent a nested factor's sd into the funnel in 2 of 6 seeds (1 of
    // 12 without).
    const bool cv = t > 1;
    if (sparse_sampled_ && sparse_exact_)
      sparse_->step(*sp, *zeta, grad_logp, rho, *sparse_sampled_, sparse_exact_, max_mean_step_, cv);
    else
      sparse_->step(*sp, *zeta, grad_logp, rho, *density, nullptr, max_mean_step_, cv);
  } else
    throw std::logic_error("natural gradient: unknown family " + q.name());
}

std::vector<double> NaturalGradient::state() const {
  return {diagonal_curvature_.data(), diagonal_curvature_.data() + diagonal_curvature_.size()};
}

void NaturalGradient::set_state(const std::vector<double>& s) {
  diagonal_curvature_ = Eigen::Map<const Eigen::VectorXd>(s.data(), static_cast<Index>(s.size()));
}

}  // namespace bvi::vi
