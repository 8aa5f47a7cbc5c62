#include "inference/optimizers/natural_sparse_step.hpp"

#include <algorithm>
#include <cmath>

#include "inference/math/step_bound.hpp"

namespace bvi::vi {

namespace {

// Each probe moves its columns by 1e-4 of q's conditional sd (1 / sqrt(Lambda_jj)): small against
// the curvature's variation, large against the gradients' rounding (as hessian_times in
// natural_gradient.cpp).
constexpr double kRelativeStep = 1e-4;
// The probes' batch: at most this many doubles of draws (and as many of gradients) at a time.
constexpr double kBatchDoubles = 8e6;

// Shrinks d so that sqrt(d' A d) <= radius, A given by its values on the pattern.
void limit_step(Eigen::VectorXd& d, const BlockPattern& pattern, const Eigen::VectorXd& values, double radius,
                Eigen::VectorXd& scratch) {
  pattern.multiply(values, d, scratch);
  const double m = std::sqrt(std::max(0.0, d.dot(scratch)));
  if (m > radius) d *= radius / m;
}

}  // namespace

SparseNaturalStep::SparseNaturalStep(std::shared_ptr<const BlockPattern> pattern, PairCurvature* crossed)
    : pattern_(std::move(pattern)),
      crossed_(crossed),
      probes_(pattern_, crossed != nullptr),
      next_(pattern_),
      floor_check_(pattern_) {}

void SparseNaturalStep::step(SparsePrecision& q, const Eigen::MatrixXd& zeta, const Eigen::MatrixXd& g,
                             double rho, LogDensity& sampled, ExpectedLogDensity* exact_part,
                             const Eigen::VectorXd& bounds, bool control_variate) {
  const BlockPattern& pattern = *pattern_;
  const Index P = q.dim(), S = zeta.rows(), C = probes_.count();
  const Eigen::VectorXd lambda = q.precision();
  const Eigen::VectorXd mu = q.mean();
  Eigen::VectorXd h(P);
  for (Index j = 0; j < P; ++j)
    h[j] = kRelativeStep / std::sqrt(lambda[pattern.diagonal()[static_cast<std::size_t>(j)]]);

  // The sampled part at each draw (with the closed-form part, its gradient there too: row 0 of the
  // draw's rows) and H (sum_{j in probe c} h_j e_j) as forward differences of the gradients, summed
  // over the draws whose gradients are all finite.
  const bool own_base = exact_part != nullptr;
  const Index R = C + (own_base ? 1 : 0), first_probe = own_base ? 1 : 0;
  products_.setZero(C, P);
  gradient_sum_.setZero(P);
  draw_sum_.setZero(P);
  const Index chunk =
      std::clamp<Index>(static_cast<Index>(kBatchDoubles / double(std::max<Index>(1, R * P))), 1, S);
  Index used = 0;
  if (crossed_) used_.resize(S, P);
  for (Index s0 = 0; s0 < S; s0 += chunk) {
    const Index n = std::min(chunk, S - s0);
    theta_.resize(n * R, P);
    for (Index s = 0; s < n; ++s) {
      if (own_base) theta_.row(s * R) = zeta.row(s0 + s);
      for (Index c = 0; c < C; ++c) {
        auto row = theta_.row(s * R + first_probe + c);
        row = zeta.row(s0 + s);
        for (Index j : probes_.columns(c)) row[j] += h[j];
      }
    }
    lp_.resize(n * R);
    sampled.log_density(theta_, lp_, &grad_);
    for (Index s = 0; s < n; ++s) {
      if (own_base)
        base_ = grad_.row(s * R);
      else
        base_ = g.row(s0 + s);
      const auto block = grad_.middleRows(s * R + first_probe, C);
      if (!grad_.middleRows(s * R, R).allFinite() || !lp_.segment(s * R, R).allFinite() || !base_.allFinite())
        continue;
      products_ += block.rowwise() - base_;
      gradient_sum_ += base_.transpose();
      draw_sum_ += zeta.row(s0 + s).transpose();
      if (crossed_) used_.row(used) = zeta.row(s0 + s);
      ++used;
    }
  }
  if (used == 0) return;  // no finite draw: q stays (the estimator has redrawn what it could)

  // The closed-form part at q: its mean gradient and -2 G on the pattern.
  Eigen::VectorXd exact_mean = Eigen::VectorXd::Zero(P), exact_curvature;
  if (exact_part) {
    GaussianQ gq;
    gq.mean = mu;
    gq.factor = q.shared_factor();  // q's precision, factorized for the draws already
    if (!gq.set_precision(lambda)) return;  // q's own precision: factorized before, so never
    exact_part->evaluate(gq, &exact_gradient_);
    if (!exact_gradient_.d_mean.allFinite() || !exact_gradient_.d_sparse.allFinite()) return;
    exact_mean = exact_gradient_.d_mean;
    exact_curvature = -2.0 * exact_gradient_.d_sparse;
  }

  probes_.assemble(products_, h, curvature_);
  if (crossed_) crossed_->add(used_.topRows(used), curvature_);
  curvature_ *= -1.0 / static_cast<double>(used);
  if (exact_part) curvature_ += exact_curvature;
  // The average, halved until Lambda' - Lambda / 4 is positive definite (q widens by at most 2x
  // in sd along any direction per step, as fullrank's step bounds the eigenvalues of Lambda' in
  // Lambda's metric): the draws' curvature can have negative directions away from the optimum
  // (student_t's tails), and a bound on each coordinate's precision alone let nearly flat
  // directions through: student_t models' group sds fell into the funnel (2 of 14 seeds), and one
  // model's log nu went from sd 1 to 14 in one step, after which no draw was finite. The
  // diagonal's bound is the cheap first test; the floor's factorization the whole one.
  Eigen::VectorXd lambda_new;
  bool factorized = false;
  double r = rho;
  for (int i = 0; i < 8 && !factorized; ++i, r *= 0.5) {
    lambda_new = (1.0 - r) * lambda + r * curvature_;
    bool wide = false;
    for (Index j : pattern.diagonal()) wide = wide || !(lambda_new[j] >= 0.25 * lambda[j]);
    if (wide) continue;
    floor_ = lambda_new - 0.25 * lambda;
    factorized = floor_check_.factorize(floor_) && next_.factorize(lambda_new);
  }
  if (!factorized) {
    lambda_new = lambda;
    if (!next_.factorize(lambda_new)) return;  // q's own precision: factorized before, so never
  }

  // The mean: a Newton step on the gradient with its control variate, the sampled part's curvature
  // as q had it before the draws (Lambda less the closed-form part's), times mean zeta - mu, whose
  // expectation is 0 (for a Gaussian sampled part it cancels the draws' noise).
  const double inv = 1.0 / static_cast<double>(used);
  Eigen::VectorXd centre = draw_sum_ * inv - mu, scratch(P);
  Eigen::VectorXd cv_matrix = exact_part ? Eigen::VectorXd(lambda - exact_curvature) : lambda;
  pattern.multiply(cv_matrix, centre, scratch);
  if (!control_variate) scratch.setZero();
  const Eigen::VectorXd gcv = gradient_sum_ * inv + scratch + exact_mean;
  Eigen::VectorXd d = rho * next_.solve(gcv);
  const double radius = 4.0 * std::sqrt(static_cast<double>(P));  // natural_gradient.cpp's trust region
  limit_step(d, pattern, lambda_new, radius, scratch);
  limit_step(d, pattern, lambda, radius, scratch);
  bound_step(d, bounds);
  q.params().head(P) += d;
  q.precision() = lambda_new;
}

}  // namespace bvi::vi
