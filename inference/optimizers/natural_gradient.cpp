#include "inference/optimizers/natural_gradient.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"

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
    out = 0.5 * (out + out.transpose());
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
double trust_radius(Index P) { return 4.0 * std::sqrt(static_cast<double>(P)); }

void meanfield_step(MeanField& q, Eigen::MatrixXd& curvature, const Eigen::MatrixXd& eps, const Eigen::MatrixXd& g,
                    double rho) {
  const Index P = q.dim();
  const Eigen::ArrayXd sigma = q.omega().array().exp();
  const GradientRegression reg = regress(g, eps);
  // K = -sym(slope diag(1/sigma)): the curvature estimate.
  Eigen::MatrixXd K = -(reg.slope.array().rowwise() / sigma.transpose()).matrix();
  K = 0.5 * (K + K.transpose());
  if (curvature.rows() != P) curvature = sigma.square().inverse().matrix().asDiagonal();  // q's precision
  // The scales: the same average on each diagonal entry, lambda_i = 1 / sigma_i^2, halved for an
  // entry where a negative estimate would drive it to zero or below.
  const Eigen::ArrayXd lambda = sigma.square().inverse();
  Eigen::ArrayXd lambda_new = (1.0 - rho) * lambda + rho * K.diagonal().array();
  for (Index i = 0; i < P; ++i) {
    double r = rho;
    while (!(lambda_new[i] > 0.25 * lambda[i]) && r > 1e-3) {
      r *= 0.5;
      lambda_new[i] = (1.0 - r) * lambda[i] + r * K(i, i);
    }
    if (!(lambda_new[i] > 0.25 * lambda[i])) lambda_new[i] = lambda[i];
  }
  // The mean gradient with a control variate from the curvature of the previous steps:
  //   g_cv = mean g + Lambda_prev (mean z - mu),  z - mu = sigma .* eps.
  // Exactly unbiased, since E[mean z - mu] = 0 and Lambda_prev does not depend on this step's
  // draws (the same-draw regression intercept is biased by O(skewness / S)), and for a Gaussian
  // posterior it cancels the noise entirely.
  const Eigen::VectorXd zbar = (sigma * eps.colwise().mean().transpose().array()).matrix();
  const Eigen::VectorXd gcv = g.colwise().mean().transpose() + curvature * zbar;
  curvature = average_precision(curvature, K, rho);
  // The mean: a damped Newton step with the full curvature.
  Eigen::VectorXd step = rho * curvature.llt().solve(gcv);
  limit_step(step, curvature, trust_radius(P));
  limit_step(step, lambda_new, trust_radius(P));  // and in q's own metric
  q.params().head(P) += step;
  q.omega() = -0.5 * lambda_new.log().matrix();
}

void fullrank_step(FullRank& q, const Eigen::MatrixXd& eps, const Eigen::MatrixXd& g, double rho) {
  const Index P = q.dim();
  const Eigen::MatrixXd L = q.cholesky();
  const GradientRegression reg = regress(g, eps);
  // K = -sym(slope L^-1)
  const Eigen::MatrixXd M = L.transpose().triangularView<Eigen::Upper>().solve(reg.slope.transpose());
  Eigen::MatrixXd K = -M.transpose();
  K = 0.5 * (K + K.transpose());
  // Lambda = Sigma^-1 = L^-T L^-1
  const Eigen::MatrixXd Linv = L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(P, P));
  const Eigen::MatrixXd lambda = Linv.transpose() * Linv;
  // Control variate as for meanfield: g_cv = mean g + Lambda (mean z - mu), z - mu = L eps.
  const Eigen::VectorXd gcv = g.colwise().mean().transpose() + lambda * (L * eps.colwise().mean().transpose());
  const Eigen::MatrixXd lambda_new = average_precision(lambda, K, rho);
  Eigen::LLT<Eigen::MatrixXd> llt(lambda_new);
  Eigen::VectorXd step = rho * llt.solve(gcv);
  limit_step(step, lambda_new, trust_radius(P));
  q.params().head(P) += step;
  const Eigen::MatrixXd sigma_new = llt.solve(Eigen::MatrixXd::Identity(P, P));
  q.set_cholesky(Eigen::LLT<Eigen::MatrixXd>(0.5 * (sigma_new + sigma_new.transpose())).matrixL());
}

}  // namespace

double NaturalGradientSchedule::at(long t) const {
  return rho_min + (rho0 - rho_min) * std::exp2(-static_cast<double>(t - 1) / half_life);
}

void NaturalGradient::step(Family& q, const Eigen::MatrixXd& eps, const Eigen::MatrixXd& grad_logp, long t) {
  const double rho = schedule_.at(t);
  if (auto* mf = dynamic_cast<MeanField*>(&q))
    meanfield_step(*mf, curvature_, eps, grad_logp, rho);
  else if (auto* fr = dynamic_cast<FullRank*>(&q))
    fullrank_step(*fr, eps, grad_logp, rho);
  else
    throw std::logic_error("natural gradient: unknown family " + q.name());
}

std::vector<double> NaturalGradient::state() const { return {curvature_.data(), curvature_.data() + curvature_.size()}; }

void NaturalGradient::set_state(const std::vector<double>& s) {
  const auto n = static_cast<Index>(std::llround(std::sqrt(static_cast<double>(s.size()))));
  if (n * n != static_cast<Index>(s.size())) throw std::invalid_argument("natural gradient: bad state");
  curvature_ = Eigen::Map<const Eigen::MatrixXd>(s.data(), n, n);
}

}  // namespace bvi::vi
