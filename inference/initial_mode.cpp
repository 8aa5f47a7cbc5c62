#include "inference/initial_mode.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>

#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"

namespace bvi::vi {

namespace {

constexpr int kLineSearchPoints = 7;  // a = 1, 1/2, ..., 1/64

// log p, its gradient g and H = -(its Hessian) at x, from one batch of P + 1 gradients: column j
// of the Hessian is (grad(x + h_j e_j) - grad(x)) / h_j, h_j = 1e-4 max(1, |x_j|) (small against
// the scale on which a GLM's curvature varies, large against the gradients' rounding, in float32
// data too). False when anything is not finite.
bool curvature_at(LogDensity& density, const Eigen::VectorXd& x, double& lp, Eigen::VectorXd& g,
                  Eigen::MatrixXd& H) {
  const Index P = x.size();
  Eigen::MatrixXd theta = x.transpose().replicate(P + 1, 1), grad;
  Eigen::VectorXd h(P), values(P + 1);
  for (Index j = 0; j < P; ++j) {
    h[j] = 1e-4 * std::max(1.0, std::abs(x[j]));
    theta(j + 1, j) += h[j];
  }
  density.log_density(theta, values, &grad);
  if (!values.allFinite() || !grad.allFinite()) return false;
  lp = values[0];
  g = grad.row(0).transpose();
  H.resize(P, P);
  for (Index j = 0; j < P; ++j) H.col(j) = -(grad.row(j + 1).transpose() - g) / h[j];
  H = 0.5 * (H + H.transpose()).eval();
  return true;
}

// The Newton direction H^-1 g, with H + lambda I for the smallest lambda (0, then growing tenfold
// from 1e-6 of H's largest diagonal entry) that is positive definite. False when none is.
bool newton_direction(const Eigen::MatrixXd& H, const Eigen::VectorXd& g, Eigen::VectorXd& d) {
  const Index P = H.rows();
  const double scale = std::max(H.diagonal().cwiseAbs().maxCoeff(), 1e-300);
  double lambda = 0.0;
  for (int k = 0; k < 30; ++k) {
    Eigen::LLT<Eigen::MatrixXd> llt(H + lambda * Eigen::MatrixXd::Identity(P, P));
    if (llt.info() == Eigen::Success) {
      d = llt.solve(g);
      if (d.allFinite()) return true;
    }
    lambda = lambda == 0.0 ? 1e-6 * scale : 10.0 * lambda;
  }
  return false;
}

}  // namespace

ModeFit find_mode(LogDensity& density, const Eigen::VectorXd& start, const ModeOptions& options) {
  const Index P = start.size();
  ModeFit fit;
  fit.mode = start;
  Eigen::VectorXd g, d;
  Eigen::MatrixXd H;
  double lp = 0;
  for (int it = 0; it < options.max_iterations; ++it) {
    ++fit.batches;
    if (!curvature_at(density, fit.mode, lp, g, H)) return fit;
    fit.log_density = lp;
    fit.precision = H;
    if (!newton_direction(H, g, d)) return fit;
    const double decrement = g.dot(d);
    if (decrement < options.tol_decrement) {
      fit.converged = true;
      break;
    }
    // Backtracking in one batch: the largest a with an Armijo increase of log p.
    Eigen::MatrixXd candidates(kLineSearchPoints, P);
    for (int k = 0; k < kLineSearchPoints; ++k)
      candidates.row(k) = (fit.mode + std::ldexp(1.0, -k) * d).transpose();
    Eigen::VectorXd values(kLineSearchPoints);
    density.log_density(candidates, values, nullptr);
    ++fit.batches;
    int taken = -1;
    for (int k = 0; k < kLineSearchPoints && taken < 0; ++k)
      if (std::isfinite(values[k]) && values[k] >= lp + 1e-4 * std::ldexp(1.0, -k) * decrement) taken = k;
    if (taken < 0) return fit;  // no increase along d: not a usable start
    fit.mode = candidates.row(taken).transpose();
    fit.iterations = it + 1;
  }
  fit.ok = fit.converged && Eigen::LLT<Eigen::MatrixXd>(fit.precision).info() == Eigen::Success;
  return fit;
}

bool set_to_laplace(Family& q, const ModeFit& fit) {
  const Index P = q.dim();
  if (auto* mf = dynamic_cast<MeanField*>(&q)) {
    mf->params().head(P) = fit.mode;
    mf->omega() = -0.5 * fit.precision.diagonal().array().log().matrix();
    return true;
  }
  if (auto* fr = dynamic_cast<FullRank*>(&q)) {
    const Eigen::MatrixXd covariance =
        Eigen::LLT<Eigen::MatrixXd>(fit.precision).solve(Eigen::MatrixXd::Identity(P, P));
    Eigen::LLT<Eigen::MatrixXd> llt(0.5 * (covariance + covariance.transpose()));
    if (llt.info() != Eigen::Success) return false;
    fr->params().head(P) = fit.mode;
    fr->set_cholesky(llt.matrixL());
    return true;
  }
  return false;
}

}  // namespace bvi::vi
