// The natural optimizer's start at the posterior mode (initial_mode.hpp): damped Newton with a
// finite-difference Hessian lands on modes known in closed form, a smooth convex one and a
// non-log-concave one whose start has positive curvature; a density with no mode is not a usable
// start; Laplace's approximation sets the families as their closed forms say; the summary's ELBO
// from the output draws (final_approximation.hpp) matches the closed-form ELBO of a Gaussian target.
#include <doctest/doctest.h>

#include <Eigen/Cholesky>
#include <cmath>

#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"
#include "inference/final_approximation.hpp"
#include "inference/initial_mode.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_initial_mode {

using namespace bvi;

namespace {

// log p(x) = sum_i a_i u_i - b_i exp(u_i), u = M x (a Gamma(a_i, b_i) log-density on the log scale
// of each u_i): mode u_i = log(a_i / b_i), so x* = M^-1 log(a / b); the Hessian there is
// -M^T diag(a) M (b exp(u) = a at the mode).
class GammaLogTarget final : public vi::LogDensity {
 public:
  GammaLogTarget(Eigen::MatrixXd m, Eigen::VectorXd a, Eigen::VectorXd b)
      : m_(std::move(m)), a_(std::move(a)), b_(std::move(b)) {}
  vi::Index dim() const override { return m_.cols(); }
  void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                   Eigen::MatrixXd* grad) override {
    ++calls;
    const Eigen::MatrixXd u = theta * m_.transpose();  // S x P
    const Eigen::ArrayXXd e = u.array().exp().rowwise() * b_.transpose().array();
    lp = (u * a_).array() - e.rowwise().sum();
    if (grad) *grad = ((-e).rowwise() + a_.transpose().array()).matrix() * m_;
  }
  int calls = 0;

 private:
  Eigen::MatrixXd m_;
  Eigen::VectorXd a_, b_;
};

// An independent Student-t (nu = 1, Cauchy) in each coordinate centred at mu: log p = -sum log(1 +
// (x - mu)^2). Mode mu, curvature 2 there; at |x - mu| > 1 the density is log-convex, so Newton
// from the origin with mu = 3 must regularize its first steps.
class CauchyTarget final : public vi::LogDensity {
 public:
  explicit CauchyTarget(Eigen::VectorXd mu) : mu_(std::move(mu)) {}
  vi::Index dim() const override { return mu_.size(); }
  void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                   Eigen::MatrixXd* grad) override {
    const Eigen::ArrayXXd r = theta.array().rowwise() - mu_.transpose().array();
    lp = -(1.0 + r.square()).log().rowwise().sum().matrix();
    if (grad) *grad = (-2.0 * r / (1.0 + r.square())).matrix();
  }

 private:
  Eigen::VectorXd mu_;
};

// log p = sum x: increasing without bound, no mode.
class RampTarget final : public vi::LogDensity {
 public:
  vi::Index dim() const override { return 2; }
  void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                   Eigen::MatrixXd* grad) override {
    lp = theta.rowwise().sum();
    if (grad) *grad = Eigen::MatrixXd::Ones(theta.rows(), theta.cols());
  }
};

// A Gaussian N(m, Sigma) target, log p with every constant: log p(x) = log N(x; m, Sigma) + c, so
// that the ELBO of q = N(m, Sigma) is c exactly (KL 0) and of any other q is c - KL(q || p).
class GaussianTarget final : public vi::LogDensity {
 public:
  GaussianTarget(Eigen::VectorXd m, const Eigen::MatrixXd& sigma, double c)
      : m_(std::move(m)), prec_(sigma.inverse()), c_(c) {
    log_norm_ = -0.5 * static_cast<double>(m_.size()) * std::log(2 * std::acos(-1.0)) -
                0.5 * std::log(sigma.determinant());
  }
  vi::Index dim() const override { return m_.size(); }
  void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                   Eigen::MatrixXd* grad) override {
    const Eigen::MatrixXd r = theta.rowwise() - m_.transpose();
    const Eigen::MatrixXd rp = r * prec_;
    lp = (-0.5 * (rp.array() * r.array()).rowwise().sum() + log_norm_ + c_).matrix();
    if (grad) *grad = -rp;
  }

 private:
  Eigen::VectorXd m_;
  Eigen::MatrixXd prec_;
  double c_, log_norm_ = 0;
};

}  // namespace

TEST_CASE("initial mode: damped Newton lands on a closed-form mode and its Hessian") {
  Eigen::MatrixXd m(3, 3);
  m << 1.0, 0.5, 0.0, -0.3, 1.0, 0.2, 0.1, 0.4, 1.5;
  Eigen::VectorXd a(3), b(3);
  a << 50, 400, 9;
  b << 10, 20, 1;  // the mode at u = log(5), log(20), log(9): far from the origin
  GammaLogTarget target(m, a, b);
  const vi::ModeFit fit = vi::find_mode(target, Eigen::VectorXd::Zero(3), {30, 1e-12});
  REQUIRE(fit.ok);
  CHECK(fit.converged);
  const Eigen::VectorXd u_star = (a.array() / b.array()).log().matrix();
  const Eigen::VectorXd x_star = m.partialPivLu().solve(u_star);
  for (int j = 0; j < 3; ++j) CHECK(fit.mode[j] == doctest::Approx(x_star[j]).epsilon(1e-8));
  const Eigen::MatrixXd H = m.transpose() * a.asDiagonal() * m;
  // Forward differences (along the last curvature's whitening): the Hessian to about 1e-3 relative.
  CHECK((fit.precision - H).norm() / H.norm() < 2e-3);
  CHECK(fit.batches ==
        2 * fit.iterations + 1);  // a curvature batch and a line search per step, one more to stop
  CHECK(target.calls == fit.batches);
}

// A design as forensic glass data's (oxide percentages summing to ~100): columns of 1, ~72 and ~14 with
// little spread, so the curvature's entries are ~1e4 times its flat direction's. Differences
// along the axes (h_j = 1e-4 max(1, |x_j|)) lose that direction to their first-order error and
// Newton crawls; along the last curvature's whitening they keep it.
TEST_CASE("initial mode: an ill-conditioned curvature, the mode in a few iterations") {
  Eigen::MatrixXd m(3, 3);
  m << 1.0, 72.0, 13.6, 1.0, 72.8, 13.1, 1.0, 71.9, 14.4;
  Eigen::VectorXd a(3), b(3);
  a << 200, 300, 150;
  b << 1, 2, 0.05;
  GammaLogTarget target(m, a, b);
  const Eigen::VectorXd u_star = (a.array() / b.array()).log().matrix();
  const Eigen::VectorXd x_star = m.partialPivLu().solve(u_star);  // about (-181, 1.9, 3.6)
  // From u* + (1, -1, 0.5): the line search's 1/64 cannot tame the origin's exp(u) of this design.
  const Eigen::VectorXd start = m.partialPivLu().solve(u_star + Eigen::Vector3d(1.0, -1.0, 0.5));
  const vi::ModeFit fit = vi::find_mode(target, start, {30, 1e-10});
  REQUIRE(fit.ok);
  CHECK(fit.iterations <= 12);
  const Eigen::MatrixXd H = m.transpose() * a.asDiagonal() * m;
  // Within 1e-4 posterior sd of the mode, in every direction (the metric of the curvature).
  const Eigen::VectorXd e = fit.mode - x_star;
  CHECK(std::sqrt(e.dot(H * e)) < 1e-4);
  // The curvature to 2e-2 in its own metric, H^-1/2 (precision - H) H^-1/2 (0.009 here: the
  // whitened steps are at least 1e-4 of the largest coordinate they move, |x_1| = 181, for float32
  // data; along the axes, 0.76).
  Eigen::LLT<Eigen::MatrixXd> llt(H);
  const Eigen::MatrixXd Li = llt.matrixL().solve(Eigen::MatrixXd::Identity(3, 3));
  CHECK((Li * (fit.precision - H) * Li.transpose()).norm() < 2e-2);
}

TEST_CASE("initial mode: a non-log-concave start is regularized, the mode still found") {
  Eigen::VectorXd mu(2);
  mu << 3.0, -2.5;
  CauchyTarget target(mu);
  const vi::ModeFit fit = vi::find_mode(target, Eigen::VectorXd::Zero(2), {50, 1e-14});
  REQUIRE(fit.ok);
  CHECK(fit.mode[0] == doctest::Approx(3.0).epsilon(1e-7));
  CHECK(fit.mode[1] == doctest::Approx(-2.5).epsilon(1e-7));
  CHECK(fit.precision(0, 0) == doctest::Approx(2.0).epsilon(1e-3));
  CHECK(std::abs(fit.precision(0, 1)) < 1e-6);
}

TEST_CASE("initial mode: no mode, no usable start") {
  RampTarget target;
  const vi::ModeFit fit = vi::find_mode(target, Eigen::VectorXd::Zero(2));
  CHECK_FALSE(fit.ok);
  CHECK_FALSE(fit.converged);
}

TEST_CASE("initial mode: Laplace's approximation sets the families") {
  vi::ModeFit fit;
  fit.mode = (Eigen::VectorXd(2) << 1.0, -2.0).finished();  // not a Vector2d: GCC 12 -Warray-bounds noise
  fit.precision.resize(2, 2);
  fit.precision << 4.0, 1.0, 1.0, 2.0;
  fit.ok = true;
  vi::FullRank fr(2);
  REQUIRE(vi::set_to_laplace(fr, fit));
  CHECK(fr.mean()[0] == doctest::Approx(1.0));
  CHECK(fr.mean()[1] == doctest::Approx(-2.0));
  const Eigen::MatrixXd cov =
      fr.covariance();  // the inverse of [[4, 1], [1, 2]] by hand: [[2, -1], [-1, 4]] / 7
  CHECK(cov(0, 0) == doctest::Approx(2.0 / 7));
  CHECK(cov(0, 1) == doctest::Approx(-1.0 / 7));
  CHECK(cov(1, 1) == doctest::Approx(4.0 / 7));
  vi::MeanField mf(2);
  REQUIRE(vi::set_to_laplace(mf, fit));
  CHECK(mf.mean()[1] == doctest::Approx(-2.0));
  CHECK(mf.marginal_sd()[0] == doctest::Approx(0.5));  // 1 / sqrt(4)
  CHECK(mf.marginal_sd()[1] == doctest::Approx(1.0 / std::sqrt(2.0)));
}

TEST_CASE(
    "final ELBO from the output draws: the closed form, and a smaller error than mean log p + entropy") {
  Eigen::VectorXd m(3);
  m << 0.5, -1.0, 2.0;
  Eigen::MatrixXd sigma(3, 3);
  sigma << 1.0, 0.3, 0.1, 0.3, 0.5, 0.0, 0.1, 0.0, 2.0;
  const double c = -1234.5;
  GaussianTarget target(m, sigma, c);
  // q = p: the ELBO is c exactly, and log p - log q is c at every draw (standard error 0).
  vi::FullRank q(3);
  q.params().head(3) = m;
  q.set_cholesky(Eigen::LLT<Eigen::MatrixXd>(sigma).matrixL());
  const vi::FinalReport exact = vi::report_final_from_output(target, q, 5, 1000);
  CHECK(exact.elbo.value == doctest::Approx(c).epsilon(1e-12));
  CHECK(exact.elbo.se < 1e-9);
  CHECK(exact.elbo_draw_count == 1000);
  CHECK(exact.draws.zeta.rows() == 1000);
  CHECK(exact.pareto_draws == 1000);
  // q's scale 0.95 of p's (close to the posterior, as at the end of a fit): ELBO = c - KL(q || p),
  // KL = 0.5 (tr(S_p^-1 S_q) - k - log det(S_q S_p^-1)) = 0.5 (3 s^2 - 3 - 3 log s^2); within 4 of
  // its standard errors, which are smaller than the classic estimator's from four times as many
  // draws (by hand: sd of log p - log q = sqrt(6) (1 - s^2) / 2 = 0.12, of log p about 1.1).
  const double s2 = 0.95 * 0.95;
  q.set_cholesky(0.95 * Eigen::LLT<Eigen::MatrixXd>(sigma).matrixL().toDenseMatrix());
  const double kl = 0.5 * (3 * s2 - 3 - 3 * std::log(s2));
  const vi::FinalReport r = vi::report_final_from_output(target, q, 5, 1000);
  CHECK(std::abs(r.elbo.value - (c - kl)) < 4 * r.elbo.se);
  const vi::FinalReport classic = vi::report_final(target, q, 5, 4000, 1000);
  CHECK(std::abs(classic.elbo.value - (c - kl)) < 4 * classic.elbo.se);
  CHECK(r.elbo.se < classic.elbo.se);
  CHECK(classic.elbo_draw_count == 4000);
}

}  // namespace test_initial_mode
