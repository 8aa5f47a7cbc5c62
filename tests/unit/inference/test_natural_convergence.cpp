// The natural optimizer's stopping rule (tol_step): the move it measures, in q's own units,
// against closed forms; when it fires on sequences whose answer is known by hand; that noise
// of the size it must ignore keeps it from firing; its checkpoint state; and in the run loop,
// that it stops a Gaussian target's fit early at the optimum without changing the iterates.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "common/error.hpp"
#include "common/logger.hpp"
#include "inference/advi.hpp"
#include "inference/checkpoint.hpp"
#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"
#include "inference/optimizers/natural_convergence.hpp"
#include "support/expect_error.hpp"
#include "support/gaussian_target.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_natural_convergence {

using namespace bvi;
using vi::NaturalConvergence;

namespace {

// A heavy-tailed target, independent Student-t (nu = 3) coordinates: no Gaussian q fits it
// exactly, so every natural step's curvature and mean estimates carry Monte Carlo noise.
class StudentTarget final : public vi::LogDensity {
 public:
  explicit StudentTarget(vi::Index p) : p_(p) {}
  vi::Index dim() const override { return p_; }
  void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                   Eigen::MatrixXd* grad) override {
    constexpr double nu = 3.0;
    const Eigen::ArrayXXd u = 1.0 + theta.array().square() / nu;
    lp = (-0.5 * (nu + 1.0) * u.log()).rowwise().sum().matrix();
    // d/dz log(1 + z^2 / nu) = 2 z / (nu + z^2)
    if (grad) *grad = (-(nu + 1.0) * theta.array() / (nu * u)).matrix();
  }

 private:
  vi::Index p_;
};

spec::InferenceConfig natural_config(const std::string& algorithm, long max_iterations) {
  spec::InferenceConfig c;
  c.method = "monte_carlo";
  c.algorithm = algorithm;
  c.draws_per_step = 64;
  c.optimizer.name = "natural";
  c.optimizer.learning_rate = 1.0;
  c.optimizer.min_learning_rate = 0.1;
  c.optimizer.half_life = 20;
  c.max_iterations = max_iterations;
  c.eval_elbo = 4;
  c.elbo_samples = 100;
  c.final_elbo_draws = 1000;
  c.seed = 42;
  c.output_draws = 100;
  return c;
}

// Feeds `moves` (already divided by rho) to a fresh rule; the step it fires at, or 0.
long firing_step(double tol, const std::vector<double>& moves) {
  NaturalConvergence rule(tol);
  for (std::size_t i = 0; i < moves.size(); ++i)
    if (rule.record(static_cast<long>(i) + 1, moves[i])) return static_cast<long>(i) + 1;
  return 0;
}

// The largest of P independent |N(0, sd^2)| per step, over `steps` steps.
std::vector<double> noisy_moves(double sd, int P, int steps, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> z(0.0, sd);
  std::vector<double> out;
  for (int t = 0; t < steps; ++t) {
    double m = 0;
    for (int j = 0; j < P; ++j) m = std::max(m, std::abs(z(gen)));
    out.push_back(m);
  }
  return out;
}

}  // namespace

TEST_CASE("the move of a meanfield step: |d mu| / sd' and |d log sd|, the largest over coordinates") {
  vi::MeanField a(3), b(3);
  a.params() << 1.0, 2.0, 3.0, std::log(0.5), std::log(2.0), std::log(1.0);
  b.params() << 1.1, 2.0, 2.7, std::log(0.5), std::log(2.0), std::log(1.0);
  // sd' = (0.5, 2, 1): mean moves 0.1 / 0.5 = 0.2 and 0.3 / 1 = 0.3
  CHECK(vi::natural_step_move(a, b) == doctest::Approx(0.3).epsilon(1e-12));
  b.params() << 1.0, 2.0, 3.0, std::log(0.5), std::log(2.0 * 1.25), std::log(1.0);
  CHECK(vi::natural_step_move(a, b) == doctest::Approx(std::log(1.25)).epsilon(1e-12));
  CHECK(vi::natural_step_move(a, a) == 0.0);
}

TEST_CASE("the move of a fullrank step includes the Cholesky diagonal, not only the marginal sds") {
  vi::FullRank a(2), b(2);
  Eigen::MatrixXd L(2, 2);
  L << 1.0, 0.0, 0.6, 0.8;  // marginal sds 1 and 1
  a.set_cholesky(L);
  // The same marginal sds (0.8^2 + 0.6^2 = 1), a different correlation: L_22 from 0.8 to 0.6.
  L << 1.0, 0.0, 0.8, 0.6;
  b.set_cholesky(L);
  CHECK(a.marginal_sd().isApprox(b.marginal_sd(), 1e-14));
  CHECK(vi::natural_step_move(a, b) == doctest::Approx(std::log(0.8 / 0.6)).epsilon(1e-12));
  // A mean move in units of the new marginal sd.
  b = a;
  b.params()(1) += 0.04;
  CHECK(vi::natural_step_move(a, b) == doctest::Approx(0.04).epsilon(1e-12));
  // A non-finite step is never quiet.
  b.params()(0) = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isinf(vi::natural_step_move(a, b)));
}

TEST_CASE("a geometrically converging sequence stops kWindow quiet steps after it falls below tol") {
  REQUIRE(NaturalConvergence::kWindow == 10);
  REQUIRE(NaturalConvergence::kMinIterations == 10);
  // move_t = 0.8^t: below 0.05 from t = ceil(log 0.05 / log 0.8) = ceil(13.43) = 14, so the tenth
  // quiet step is t = 23.
  std::vector<double> moves;
  for (int t = 1; t <= 200; ++t) moves.push_back(std::pow(0.8, t));
  CHECK(firing_step(0.05, moves) == 23);
  // A fast one (0.5^t, quiet from t = 5) stops at its tenth quiet step, 14.
  for (int t = 1; t <= 200; ++t) moves[static_cast<std::size_t>(t - 1)] = std::pow(0.5, t);
  CHECK(firing_step(0.05, moves) == 14);
  // Quiet from the first step (a start at the posterior mode): the window is the floor.
  for (int t = 1; t <= 200; ++t) moves[static_cast<std::size_t>(t - 1)] = 0.01;
  CHECK(firing_step(0.05, moves) == NaturalConvergence::kWindow);
  // One loud step restarts the window: quiet from 14, loud at 20, quiet again from 21 to 30.
  for (int t = 1; t <= 200; ++t) moves[static_cast<std::size_t>(t - 1)] = std::pow(0.8, t);
  moves[19] = 0.06;
  CHECK(firing_step(0.05, moves) == 30);
}

TEST_CASE("noise of the size tol / 1.5 per coordinate never stops it; noise of tol / 5 does") {
  // 10 coordinates: a step is quiet when all ten |N(0, sd^2)| are below tol, for sd = tol / 1.5
  // with probability P(|Z| < 1.5)^10 = 0.24, ten in a row 6e-7: no window in 200 steps.
  for (unsigned seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    CHECK(firing_step(0.05, noisy_moves(0.05 / 1.5, 10, 200, seed)) == 0);
  }
  // sd = tol / 5: P(|Z| < 5)^100 = 1 - 6e-5, it stops as soon as it may.
  CHECK(firing_step(0.05, noisy_moves(0.01, 10, 200, 7)) == NaturalConvergence::kMinIterations);
}

TEST_CASE("the rule's state resumes a window where it was") {
  std::vector<double> moves;
  for (int t = 1; t <= 200; ++t) moves.push_back(std::pow(0.8, t));
  NaturalConvergence a(0.05);
  for (long t = 1; t <= 18; ++t) CHECK_FALSE(a.record(t, moves[static_cast<std::size_t>(t - 1)]));
  NaturalConvergence b(0.05);
  b.set_state(a.state());
  CHECK(b.state() == a.state());
  CHECK(a.state()[0] == 5.0);  // quiet at 14 ... 18
  long fired = 0;
  for (long t = 19; t <= 200 && !fired; ++t)
    if (b.record(t, moves[static_cast<std::size_t>(t - 1)])) fired = t;
  CHECK(fired == 23);
  CHECK(b.reason().find("10 consecutive natural steps") != std::string::npos);
  CHECK_THROWS_AS(b.set_state({1.5, 0.0}), std::invalid_argument);
  CHECK_THROWS_AS(b.set_state({1.0}), std::invalid_argument);
  CHECK_THROWS_AS(b.set_state({-1.0, 0.0}), std::invalid_argument);
}

TEST_CASE("a Gaussian target's fullrank natural fit stops within 15 steps, on the same iterates") {
  // For a Gaussian target the regression curvature is exact, so q is at the optimum within a
  // few steps and every later step's move is rounding.
  const Eigen::MatrixXd A = test::test_precision(4);
  const Eigen::VectorXd m = (Eigen::VectorXd(4) << 1.0, -2.0, 0.5, 3.0).finished();
  test::GaussianTarget target(m, A);
  NullLogger log;
  auto cfg = natural_config("fullrank", 200);
  cfg.tol_step = 0.05;
  const vi::AdviResult r = vi::run_advi(target, cfg, log);
  CHECK(r.converged);
  // The walk from the origin takes a few steps, then ten quiet ones (15 with this seed).
  CHECK(r.iterations >= NaturalConvergence::kWindow);
  CHECK(r.iterations <= 15);
  CHECK(r.convergence.find("q stopped moving") == 0);
  const Eigen::VectorXd sd = A.inverse().diagonal().cwiseSqrt();
  CHECK(((r.q->mean() - m).array() / sd.array()).abs().maxCoeff() < 1e-6);
  CHECK((r.q->covariance() - A.inverse()).norm() / A.inverse().norm() < 1e-6);
  // The rule only reads q: the same run without it, for as many steps, has the same bits.
  auto fixed = natural_config("fullrank", r.iterations);
  const vi::AdviResult f = vi::run_advi(target, fixed, log);
  CHECK_FALSE(f.converged);
  CHECK(f.convergence.empty());
  CHECK(f.q->params() == r.q->params());
}

TEST_CASE("a heavy-tailed target's noisy natural fit runs to max_iterations") {
  StudentTarget target(4);
  NullLogger log;
  for (const char* family : {"meanfield", "fullrank"}) {
    CAPTURE(family);
    auto cfg = natural_config(family, 200);
    cfg.tol_step = 0.05;
    const vi::AdviResult r = vi::run_advi(target, cfg, log);
    CHECK_FALSE(r.converged);
    CHECK(r.iterations == 200);
    CHECK(r.convergence.find("ran to max_iterations (200)") == 0);
  }
}

TEST_CASE("the rule's state goes through the checkpoint and is checked against the run") {
  vi::AdviState s;
  s.iteration = 20;
  s.params = Eigen::VectorXd::Zero(4);
  s.stopping_state = {0.0, 0.0};
  s.convergence_state = {3.0, 0.0123};
  const std::string fp = "00112233aabbccdd";
  const vi::AdviState b = vi::parse_checkpoint(vi::checkpoint_text(s, fp), fp, "run.ckpt");
  CHECK(b.convergence_state == s.convergence_state);
  auto cfg = natural_config("meanfield", 200);
  cfg.tol_step = 0.05;
  vi::check_resumable(b, cfg, 2, "run.ckpt");
  vi::AdviState bad = b;
  bad.convergence_state = {21.0, 0.01};  // more quiet steps than steps
  test::expect_error([&] { vi::check_resumable(bad, cfg, 2, "run.ckpt"); }, ExitCode::config, "run.ckpt",
                     "convergence state");
  bad.convergence_state = {};
  test::expect_error([&] { vi::check_resumable(bad, cfg, 2, "run.ckpt"); }, ExitCode::config, "run.ckpt",
                     "convergence state");
  cfg.tol_step.reset();  // the rule is off: no state may come in
  test::expect_error([&] { vi::check_resumable(b, cfg, 2, "run.ckpt"); }, ExitCode::config, "run.ckpt",
                     "convergence state");
}

}  // namespace test_natural_convergence
