#include "inference/initial_mode.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"

namespace bvi::vi {

namespace {

constexpr int kLineSearchPoints = 7;  // a = 1, 1/2, ..., 1/64

// The first curvature's steps along the axes: 1e-4 max(1, |x_j|) (small against the scale on which
// a GLM's curvature varies, large against the gradients' rounding, in float32 data too: those
// take theta in single precision, 6e-8 relative). Later ones along the columns w_j of L^-T, L L^T
// the last (regularized) curvature: h_j w_j with h_j kWhitenedStep of a posterior sd, or more
// where that would move no coordinate by the axes' step (a million rows' sds of 1e-3 give steps of
// 1e-6, a few float32 ulps of a coefficient near 1), but at most kMaxWhitenedStep sd (an intercept
// of -1.6e5 beside a column near 1e4 asked for 1e3 to 1e7 sds, and the differences then measured
// nothing of the curvature at the point).
constexpr double kWhitenedStep = 1e-3, kMaxWhitenedStep = 1.0;
constexpr double kAxisStep = 1e-4;

// log p, its gradient g and the curvature at x from one batch of P + 1 gradients, at x and at
// x + h_j W e_j for every j: with M the gradients' differences, W^T M diag(1 / h) is
// -(W^T Hessian W) to first order in h, and is returned symmetrized as Ht (the Hessian in the
// coordinates z, x = W z; near the identity once W is whitening). False when anything is not
// finite.
//
// Along the axes alone (W diagonal, as the first time), an ill-conditioned posterior's
// differences lose its flat directions: a design column near 72 with sd 0.8 (the glass data's
// silica, whose oxides sum to ~100) makes entries ~1e5 whose first-order error, h times the third
// derivative, swamps a curvature of ~0.1 across them, and Newton then crawls (linearly, 0.04 of log
// p an iteration after 30). In whitened coordinates every direction has unit curvature, so the
// same relative error is small in all of them.
bool curvature_at(LogDensity& density, const Eigen::VectorXd& x, const Eigen::MatrixXd& W, const Eigen::VectorXd& h,
                  double& lp, Eigen::VectorXd& g, Eigen::MatrixXd& Ht) {
  const Index P = x.size();
  Eigen::MatrixXd theta = x.transpose().replicate(P + 1, 1), grad;
  theta.bottomRows(P) += h.asDiagonal() * W.transpose();
  Eigen::VectorXd values(P + 1);
  density.log_density(theta, values, &grad);
  if (!values.allFinite() || !grad.allFinite()) return false;
  lp = values[0];
  g = grad.row(0).transpose();
  const Eigen::MatrixXd M = (grad.bottomRows(P).rowwise() - g.transpose()).transpose();  // column j: step j
  Ht = -(W.transpose() * M) * h.cwiseInverse().asDiagonal();
  Ht = 0.5 * (Ht + Ht.transpose()).eval();
  return true;
}

// The Cholesky factor L of H + lambda I for the smallest lambda of 0, then max(1e-6 of H's largest
// diagonal entry, twice its most negative one) growing tenfold, that is positive definite (from
// the former alone, a negative entry that is the largest in size is met exactly at the sixth try,
// leaving a nearly singular matrix and a step of ~1e16); `shifted` says whether lambda > 0. False
// when none is.
bool regularized_cholesky(const Eigen::MatrixXd& H, Eigen::MatrixXd& L, bool& shifted) {
  const Index P = H.rows();
  const double scale = std::max(H.diagonal().cwiseAbs().maxCoeff(), 1e-300);
  double lambda = 0.0;
  for (int k = 0; k < 30; ++k) {
    Eigen::LLT<Eigen::MatrixXd> llt(H + lambda * Eigen::MatrixXd::Identity(P, P));
    if (llt.info() == Eigen::Success && llt.matrixLLT().allFinite()) {
      L = llt.matrixL();
      shifted = lambda > 0.0;
      return true;
    }
    lambda = lambda == 0.0 ? std::max(1e-6 * scale, -2.0 * H.diagonal().minCoeff()) : 10.0 * lambda;
  }
  return false;
}

// A Newton direction (L L^T)^-1 g, L lower triangular: the (regularized) curvature it solved with,
// whose inverse factor whitens the next differences.
struct Direction {
  Eigen::MatrixXd L;
  Eigen::VectorXd d;
  double decrement = 0;
  Direction(Eigen::MatrixXd factor, const Eigen::VectorXd& g) : L(std::move(factor)) {
    d = L.transpose().triangularView<Eigen::Upper>().solve(L.triangularView<Eigen::Lower>().solve(g));
    decrement = g.dot(d);
  }
};

}  // namespace

ModeFit find_mode(LogDensity& density, const Eigen::VectorXd& start, const ModeOptions& options) {
  const Index P = start.size();
  ModeFit fit;
  fit.mode = start;
  Eigen::VectorXd g;
  Eigen::MatrixXd Ht, C;
  // The curvature's coordinates: x = W z, W = L^-T with L lower triangular (the Hessian is
  // -L Ht L^T). First the axes scaled by h_j (L = diag(1 / h_j), unit step), then the whitening
  // of the last regularized curvature, L L^T = H + lambda I.
  Eigen::MatrixXd L;
  Eigen::VectorXd h;  // step j is h_j W e_j
  const auto along_axes = [&](const Eigen::VectorXd& x) {
    L = (1.0 / (kAxisStep * x.cwiseAbs().cwiseMax(1.0).array())).matrix().asDiagonal();
    h = Eigen::VectorXd::Ones(P);
  };
  // kWhitenedStep, or the least h_j that moves some coordinate i by kAxisStep max(1, |x_i|), up to
  // kMaxWhitenedStep.
  const auto whitened_steps = [&](const Eigen::VectorXd& x, const Eigen::MatrixXd& W) {
    const Eigen::ArrayXd axis = kAxisStep * x.cwiseAbs().cwiseMax(1.0).array();
    for (Index j = 0; j < P; ++j)
      h[j] = std::max(kWhitenedStep,
                      std::min(kMaxWhitenedStep, 1.0 / (W.col(j).array().abs() / axis).maxCoeff()));
  };
  along_axes(start);
  double lp = 0;
  for (int it = 0; it < options.max_iterations; ++it) {
    ++fit.batches;
    Eigen::MatrixXd W = L.transpose().triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(P, P));
    if (it > 0) whitened_steps(fit.mode, W);
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
    // The Newton direction (H + lambda I)^-1 g. Where H is not positive definite (lambda > 0), a
    // second one with the shift in the last curvature's metric, (H + lambda' L L^T)^-1 g, and the
    // line search takes the better: the shift in the parameters' own coordinates keeps a start far
    // from a Student t's mode, where the last curvature misleads in its non-concave scale and
    // degrees of freedom, from steps that grew tenfold an iteration; the one in the curvature's
    // metric moves an ill-conditioned posterior (a column near 72) where lambda I crawled.
    bool shifted = false;
    if (!regularized_cholesky(fit.precision, C, shifted)) return fit;
    std::vector<Direction> directions{Direction(C, g)};
    if (!directions[0].d.allFinite()) return fit;
    bool unused = false;
    if (shifted && regularized_cholesky(Ht, C, unused)) {
      Direction other((L * C).eval(), g);
      if (other.d.allFinite()) directions.push_back(std::move(other));
    }
    // Converged only where the curvature is definite: a large shift can make the shifted direction's
    // decrement small while the point is not a mode, and the other direction may still move.
    if (!shifted && directions[0].decrement < options.tol_decrement) {
      fit.converged = true;
      break;
    }
    // Backtracking in one batch: along each direction the largest a with an Armijo increase of
    // log p; of those points, the higher.
    const Index n = static_cast<Index>(directions.size());
    Eigen::MatrixXd candidates(n * kLineSearchPoints, P);
    for (Index j = 0; j < n; ++j)
      for (int k = 0; k < kLineSearchPoints; ++k)
        candidates.row(j * kLineSearchPoints + k) = (fit.mode + std::ldexp(1.0, -k) * directions[j].d).transpose();
    Eigen::VectorXd values(n * kLineSearchPoints);
    density.log_density(candidates, values, nullptr);
    ++fit.batches;
    Index taken = -1;
    for (Index j = 0; j < n; ++j) {
      for (int k = 0; k < kLineSearchPoints; ++k) {
        const Index r = j * kLineSearchPoints + k;
        if (std::isfinite(values[r]) && values[r] >= lp + 1e-4 * std::ldexp(1.0, -k) * directions[j].decrement) {
          if (taken < 0 || values[r] > values[taken]) taken = r;
          break;
        }
      }
    }
    if (taken < 0) {
      // No increase along either. Within 0.1 posterior sd of a definite curvature's mode
      // (decrement below 100 tol_decrement at the default) that is the log density's rounding,
      // as float32 data's at 10^5 rows, not a failure: the point is as good a start as any
      // nearer one. Elsewhere not a usable start.
      if (!shifted && directions[0].decrement < 100 * options.tol_decrement) {
        fit.converged = true;
        break;
      }
      return fit;
    }
    fit.mode = candidates.row(taken).transpose();
    L = directions[taken / kLineSearchPoints].L;
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
