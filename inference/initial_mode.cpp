#include "inference/initial_mode.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>

#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"

namespace bvi::vi {

namespace {

constexpr int kLineSearchPoints = 7;  // a = 1, 1/2, ..., 1/64

// The first curvature's steps along the axes: h_j = 1e-4 max(1, |x_j|) (small against the scale
// on which a GLM's curvature varies, large against the gradients' rounding, in float32 data too).
// Later ones along the columns of L^-T, L L^T the last (regularized) curvature: kWhitenedStep of
// a posterior sd in every direction of it at once.
constexpr double kWhitenedStep = 1e-3;

// log p, its gradient g and the curvature at x from one batch of P + 1 gradients, at x and at
// x + h W e_j for every j: with M the gradients' differences, W^T M / h is -(W^T Hessian W) to
// first order in h, and is returned symmetrized as Ht (the Hessian in the coordinates z, x = W z;
// near the identity once W is whitening). False when anything is not finite.
//
// Along the axes alone (W diagonal, as the first time), an ill-conditioned posterior's
// differences lose its flat directions: a design column near 72 with sd 0.8 (the glass data's
// silica, whose oxides sum to ~100) makes entries ~1e5 whose first-order error, h times the third
// derivative, swamps a curvature of ~0.1 across them, and Newton then crawls (linearly, 0.04 of log
// p an iteration after 30). In whitened coordinates every direction has unit curvature, so the
// same relative error is small in all of them.
bool curvature_at(LogDensity& density, const Eigen::VectorXd& x, const Eigen::MatrixXd& W, double h,
                  double& lp, Eigen::VectorXd& g, Eigen::MatrixXd& Ht) {
  const Index P = x.size();
  Eigen::MatrixXd theta = x.transpose().replicate(P + 1, 1), grad;
  theta.bottomRows(P) += h * W.transpose();
  Eigen::VectorXd values(P + 1);
  density.log_density(theta, values, &grad);
  if (!values.allFinite() || !grad.allFinite()) return false;
  lp = values[0];
  g = grad.row(0).transpose();
  const Eigen::MatrixXd M = (grad.bottomRows(P).rowwise() - g.transpose()).transpose();  // column j: step j
  Ht = -(W.transpose() * M) / h;
  Ht = 0.5 * (Ht + Ht.transpose()).eval();
  return true;
}

// The Cholesky factor C of Ht + lambda I for the smallest lambda of 0, then max(1e-6 of Ht's
// largest diagonal entry, twice its most negative one) growing tenfold, that is positive definite.
// (Starting from the former alone, a negative entry that is the largest in size is met exactly at
// the sixth try, leaving a nearly singular matrix and a step of ~1e16.) False when none is.
bool regularized_cholesky(const Eigen::MatrixXd& Ht, Eigen::MatrixXd& C) {
  const Index P = Ht.rows();
  const double scale = std::max(Ht.diagonal().cwiseAbs().maxCoeff(), 1e-300);
  double lambda = 0.0;
  for (int k = 0; k < 30; ++k) {
    Eigen::LLT<Eigen::MatrixXd> llt(Ht + lambda * Eigen::MatrixXd::Identity(P, P));
    if (llt.info() == Eigen::Success && llt.matrixLLT().allFinite()) {
      C = llt.matrixL();
      return true;
    }
    lambda = lambda == 0.0 ? std::max(1e-6 * scale, -2.0 * Ht.diagonal().minCoeff()) : 10.0 * lambda;
  }
  return false;
}

}  // namespace

ModeFit find_mode(LogDensity& density, const Eigen::VectorXd& start, const ModeOptions& options) {
  const Index P = start.size();
  ModeFit fit;
  fit.mode = start;
  Eigen::VectorXd g, d;
  Eigen::MatrixXd Ht, C;
  // The curvature's coordinates: x = W z, W = L^-T with L lower triangular (the Hessian is
  // -L Ht L^T). First the axes scaled by h_j (L = diag(1 / h_j), unit step), then the whitening
  // of the last regularized curvature, L <- L C with C C^T = Ht + lambda I.
  Eigen::MatrixXd L;
  double h = 1.0;
  const auto along_axes = [&](const Eigen::VectorXd& x) {
    L = (1.0 / (1e-4 * x.cwiseAbs().cwiseMax(1.0).array())).matrix().asDiagonal();
    h = 1.0;
  };
  along_axes(start);
  double lp = 0;
  for (int it = 0; it < options.max_iterations; ++it) {
    ++fit.batches;
    Eigen::MatrixXd W = L.transpose().triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(P, P));
    if (!curvature_at(density, fit.mode, W, h, lp, g, Ht)) {
      if (it == 0) return fit;
      // Whitened steps from a poor curvature can reach where the density is not finite: the axes.
      ++fit.batches;
      along_axes(fit.mode);
      W = L.transpose().triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(P, P));
      if (!curvature_at(density, fit.mode, W, h, lp, g, Ht)) return fit;
    }
    fit.log_density = lp;
    fit.precision = L * Ht * L.transpose();
    fit.precision = 0.5 * (fit.precision + fit.precision.transpose()).eval();
    if (!regularized_cholesky(Ht, C)) return fit;
    // The Newton direction (H + lambda L L^T)^-1 g, solved in the whitened coordinates.
    const Eigen::VectorXd gz = W.transpose() * g;
    d = W * C.transpose().triangularView<Eigen::Upper>().solve(C.triangularView<Eigen::Lower>().solve(gz));
    if (!d.allFinite()) return fit;
    const double decrement = g.dot(d);
    L = (L * C).eval();
    h = kWhitenedStep;
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
