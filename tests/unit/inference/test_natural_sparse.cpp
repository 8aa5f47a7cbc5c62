// The sparse family's Monte Carlo natural step (natural_sparse_step.hpp) on a Gaussian target on a
// multilevel pattern: a step of rho = 1 puts the precision on the target's (its Hessian, from the
// probes' forward differences, exact for a quadratic) and, from the target's precision, the mean on
// the target's mean (the control variate cancels the draws); with the log density split into a sampled
// likelihood and a prior in closed form, the same for their sum.
#include <doctest/doctest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <random>

#include "inference/families/sparse_precision.hpp"
#include "inference/optimizers/natural_gradient.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_natural_sparse {

using namespace bvi;
using Eigen::Index;
using vi::BlockPattern;

namespace {

// log p = -(theta - m)' A (theta - m) / 2.
class Gaussian final : public vi::LogDensity {
 public:
  Gaussian(Eigen::MatrixXd a, Eigen::VectorXd m) : a_(std::move(a)), m_(std::move(m)) {}
  Index dim() const override { return m_.size(); }
  void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                   Eigen::MatrixXd* grad) override {
    const Eigen::MatrixXd d = theta.rowwise() - m_.transpose();
    const Eigen::MatrixXd ad = d * a_;  // A symmetric
    lp = -0.5 * (ad.array() * d.array()).rowwise().sum().matrix();
    if (grad) *grad = -ad;
  }

 private:
  Eigen::MatrixXd a_;
  Eigen::VectorXd m_;
};

// Two globals, 15 groups of 2 correlated effects, and a factor of 45 levels nested in them.
std::shared_ptr<const BlockPattern> nested_pattern() {
  BlockPattern::Pair pair;
  pair.f1 = 0;
  pair.f2 = 1;
  for (std::int32_t h = 0; h < 45; ++h) pair.levels.emplace_back(h % 15, h);
  return std::make_shared<const BlockPattern>(2 + 30 + 45,
                                              std::vector<BlockPattern::Factor>{{2, 15, 2}, {32, 45, 1}},
                                              std::vector<BlockPattern::Pair>{pair});
}

// E_q of a Gaussian log density -(theta - m)' A (theta - m) / 2 in closed form, as the prior's part:
// dE/dmean = -A (mean - m), dE/dSigma = -A / 2 (on the pattern: A is on it).
class ExactGaussian final : public vi::ExpectedLogDensity {
 public:
  ExactGaussian(Eigen::MatrixXd a, Eigen::VectorXd m) : a_(std::move(a)), m_(std::move(m)) {}
  Index dim() const override { return m_.size(); }
  double evaluate(const vi::GaussianQ& q, vi::ExpectationGradient* grad) override {
    if (grad) {
      grad->reset_sparse(q.pattern());
      grad->d_mean = -a_ * (q.mean - m_);
      q.pattern().for_each_slot(
          [&](Index i, Index k, Index slot) { grad->d_sparse[slot] = -0.5 * a_(i, k); });
    }
    return 0.0;  // the step reads the gradient only
  }
  void hessian_times(const Eigen::VectorXd& d, Eigen::VectorXd& out) override { out = -a_ * d; }
  long passes() const override { return 0; }

 private:
  Eigen::MatrixXd a_;
  Eigen::VectorXd m_;
};

// A positive definite matrix on the pattern (diagonally dominant), dense, and its values.
Eigen::MatrixXd target_precision(const BlockPattern& p, Eigen::VectorXd& values, unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(p.dim(), p.dim());
  for (const auto& e : p.lower_entries())
    if (e.row != e.col) a(e.row, e.col) = a(e.col, e.row) = u(rng);
  for (Index j = 0; j < p.dim(); ++j) a(j, j) = a.row(j).cwiseAbs().sum() + 1.0 + double(j % 3);
  values.resize(p.size());
  p.for_each_slot([&](Index i, Index k, Index slot) { values[slot] = a(i, k); });
  return a;
}

}  // namespace

TEST_CASE("natural step, sparse family: rho = 1 lands on a Gaussian target's precision and mean") {
  const auto pattern = nested_pattern();
  const Index P = pattern->dim(), S = 6;
  Eigen::VectorXd values;
  const Eigen::MatrixXd a = target_precision(*pattern, values);
  const Eigen::VectorXd m = 0.05 * Eigen::VectorXd::LinSpaced(P, -1.0, 1.0);
  Gaussian density(a, m);
  std::mt19937 rng(3);
  std::normal_distribution<double> z;
  Eigen::MatrixXd eps(S, P);
  for (Index s = 0; s < S; ++s)
    for (Index j = 0; j < P; ++j) eps(s, j) = z(rng);
  auto gradients = [&](const vi::SparsePrecision& q) {
    Eigen::MatrixXd zeta(S, P), g;
    Eigen::VectorXd lp(S);
    q.transform(eps, zeta);
    density.log_density(zeta, lp, &g);
    return g;
  };
  vi::NaturalGradient rule({1.0, 1.0, 50.0});  // rho = 1 at every step

  SUBCASE("from independent coordinates of sd 0.5 the precision becomes the target's") {
    vi::SparsePrecision q(pattern);
    q.set_initial_scale(0.5);
    rule.step(q, eps, gradients(q), 1, &density);
    CHECK((q.precision() - values).cwiseAbs().maxCoeff() <= 1e-6 * values.cwiseAbs().maxCoeff());
  }
  SUBCASE("from the target's precision the mean becomes the target's, whatever the draws") {
    vi::SparsePrecision q(pattern);
    q.precision() = values;
    q.params().head(P).setConstant(0.02);
    rule.step(q, eps, gradients(q), 2, &density);
    CHECK((q.mean() - m).cwiseAbs().maxCoeff() <= 1e-9);
    CHECK((q.precision() - values).cwiseAbs().maxCoeff() <= 1e-6 * values.cwiseAbs().maxCoeff());
  }
  SUBCASE("the first step has no control variate: the plain Newton step, mu + m - mean zeta") {
    vi::SparsePrecision q(pattern);
    q.precision() = values;
    q.params().head(P).setConstant(0.02);
    Eigen::MatrixXd zeta(S, P);
    q.transform(eps, zeta);
    const Eigen::VectorXd expected = q.mean() + m - zeta.colwise().mean().transpose();
    rule.step(q, eps, gradients(q), 1, &density);
    CHECK((q.mean() - expected).cwiseAbs().maxCoeff() <= 1e-9);
  }
  SUBCASE("the likelihood sampled and the prior in closed form: the optimum of their sum") {
    // log p = likelihood (A, m) + prior (A0, m0): the optimum has precision A + A0 and mean
    // (A + A0)^-1 (A m + A0 m0). The step samples the likelihood alone.
    Eigen::VectorXd prior_values;
    const Eigen::MatrixXd a0 = target_precision(*pattern, prior_values, 11);
    const Eigen::VectorXd m0 = Eigen::VectorXd::LinSpaced(P, 0.1, -0.05);
    ExactGaussian prior(a0, m0);
    const Eigen::VectorXd sum_values = values + prior_values;
    const Eigen::VectorXd optimum = (a + a0).llt().solve(a * m + a0 * m0);
    vi::NaturalGradient split({1.0, 1.0, 50.0});
    split.set_sparse_parts(&density, &prior);
    vi::SparsePrecision q(pattern);
    q.set_initial_scale(0.5);
    const Eigen::MatrixXd unused;  // the step evaluates the likelihood's gradients itself
    split.step(q, eps, unused, 1, &density);
    CHECK((q.precision() - sum_values).cwiseAbs().maxCoeff() <= 1e-6 * sum_values.cwiseAbs().maxCoeff());
    q.params().head(P).setConstant(-0.03);
    split.step(q, eps, unused, 2, &density);  // t > 1: with the control variate
    CHECK((q.mean() - optimum).cwiseAbs().maxCoeff() <= 1e-9);
  }
  SUBCASE("a nearly flat direction of the curvature: q widens by at most 2x in sd along any direction") {
    // Every coordinate's curvature is 1 or more, but the two globals' 0.999 correlation leaves the
    // direction (e_0 - e_1) at 0.001: Lambda' = A itself (rho = 1, every diagonal entry kept)
    // would widen q 32-fold in sd there. From Lambda = I, Lambda' - I / 4 must stay positive
    // definite: the step is halved until it is.
    Eigen::MatrixXd flat = a;
    flat.row(0).setZero();
    flat.row(1).setZero();
    flat.col(0).setZero();
    flat.col(1).setZero();
    flat(0, 0) = flat(1, 1) = 1.0;
    flat(0, 1) = flat(1, 0) = 0.999;
    Gaussian flat_density(flat, m);
    vi::SparsePrecision q(pattern);
    q.set_initial_scale(1.0);
    Eigen::MatrixXd zeta(S, P), g;
    Eigen::VectorXd lp(S);
    q.transform(eps, zeta);
    flat_density.log_density(zeta, lp, &g);
    vi::NaturalGradient one({1.0, 1.0, 50.0});
    one.step(q, eps, g, 1, &flat_density);
    Eigen::MatrixXd lambda = Eigen::MatrixXd::Zero(P, P);
    pattern->for_each_slot([&](Index i, Index k, Index slot) { lambda(i, k) = q.precision()[slot]; });
    const Eigen::VectorXd eig = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(lambda).eigenvalues();
    CHECK(eig.minCoeff() >= 0.25 - 1e-12);
    CHECK(eig.minCoeff() <= 0.6);  // halved once (0.5 + 0.001 / 2), not left where it was
  }
  SUBCASE("without the density the step is refused") {
    vi::SparsePrecision q(pattern);
    CHECK_THROWS_AS(rule.step(q, eps, gradients(q), 1, nullptr), std::logic_error);
  }
}

}  // namespace test_natural_sparse
