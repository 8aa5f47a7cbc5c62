// The run loop on Gaussian targets, whose variational optima are known in closed form.
#include <doctest/doctest.h>

#include <cmath>

#include "common/error.hpp"
#include "common/logger.hpp"
#include "inference/advi.hpp"
#include "inference/final_approximation.hpp"
#include "support/gaussian_target.hpp"
#include "support/recording_logger.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_advi {

using namespace bvi;

namespace {

spec::InferenceConfig config(const std::string& algorithm, const std::string& optimizer, double lr) {
  spec::InferenceConfig c;
  c.algorithm = algorithm;
  c.draws_per_step = 64;
  c.optimizer.name = optimizer;
  c.optimizer.learning_rate = lr;
  c.max_iterations = 3000;
  c.tol_rel_obj = std::nullopt;
  c.eval_elbo = 100;
  c.elbo_samples = 100;
  c.final_elbo_draws = 4000;
  c.seed = 42;
  c.output_draws = 1000;
  return c;
}

}  // namespace

TEST_CASE("meanfield ADVI finds mu = m and sigma_i = 1/sqrt(A_ii)") {
  const Eigen::MatrixXd A = test::test_precision(4);
  test::GaussianTarget target((Eigen::VectorXd(4) << 1.0, -2.0, 0.5, 3.0).finished(), A, -7.0);
  NullLogger log;
  auto cfg = config("meanfield", "adam", 0.05);
  cfg.optimizer.decay = 0.01;
  const vi::AdviResult r = vi::run_advi(target, cfg, log);
  CHECK(r.iterations == 3000);
  CHECK_FALSE(r.converged);
  const Eigen::VectorXd sd = r.q->marginal_sd();
  for (int j = 0; j < 4; ++j) {
    const double want_sd = 1.0 / std::sqrt(A(j, j));
    CHECK(std::abs(r.q->mean()[j] - target.m()[j]) < 0.05 * want_sd);
    CHECK(sd[j] == doctest::Approx(want_sd).epsilon(0.05));
  }
  CHECK(r.trace.size() == 30);
}

TEST_CASE("fullrank ADVI recovers the covariance and an ELBO of log Z") {
  const Eigen::MatrixXd A = test::test_precision(3, 0.8);
  test::GaussianTarget target((Eigen::VectorXd(3) << 0.5, -1.0, 2.0).finished(), A, 3.0);
  NullLogger log;
  auto cfg = config("fullrank", "adam", 0.05);
  cfg.optimizer.decay = 0.01;
  const vi::AdviResult r = vi::run_advi(target, cfg, log);
  const Eigen::MatrixXd cov = r.q->covariance(), want = A.inverse();
  CHECK((cov - want).norm() / want.norm() < 0.1);
  // The ELBO is a lower bound on log Z (up to Monte Carlo error), with equality at the exact
  // optimum, where every importance ratio is equal.
  const vi::FinalReport fin = vi::report_final(target, *r.q, 42, 4000, 1000);
  CHECK(std::abs(fin.elbo.value - target.log_z()) < 0.05);
  CHECK(fin.elbo.value <= target.log_z() + 3 * fin.elbo.se);
  CHECK(fin.pareto.k < 0.5);
}

// A Gaussian target whose coordinate 0 is a log scale (bounded steps) and whose coordinate 1 is a
// group effect scaled by coordinate 2's log sd, as models::LogJoint reports them.
class BoundedTarget final : public vi::LogDensity {
 public:
  explicit BoundedTarget(test::GaussianTarget& inner) : inner_(inner) {}
  vi::Index dim() const override { return inner_.dim(); }
  void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                   Eigen::MatrixXd* grad) override {
    inner_.log_density(theta, lp, grad);
  }
  std::vector<vi::Index> scale_columns() const override { return {-1, 2, -1}; }
  Eigen::VectorXd max_mean_step() const override {
    return (Eigen::VectorXd(3) << 1.0, INFINITY, INFINITY).finished();
  }

 private:
  test::GaussianTarget& inner_;
};

TEST_CASE("natural steps: a group effect starts at its sd, a log scale moves by at most 1 a step") {
  test::GaussianTarget gaussian((Eigen::VectorXd(3) << 8.0, 4.0, -0.5).finished(),
                                test::test_precision(3, 0.3));
  BoundedTarget target(gaussian);
  NullLogger log;
  auto cfg = config("fullrank", "natural", 1.0);
  cfg.optimizer.min_learning_rate = 1.0;
  cfg.draws_per_step = 128;
  cfg.tol_step = std::nullopt;
  cfg.max_iterations = 0;  // the start: scale 0.1, but the group effect's is exp(0) = 1
  vi::AdviResult r = vi::run_advi(target, cfg, log);
  CHECK(r.q->marginal_sd()[0] == doctest::Approx(0.1));
  CHECK(r.q->marginal_sd()[1] == doctest::Approx(1.0));
  CHECK(r.q->marginal_sd()[2] == doctest::Approx(0.1));
  // The trust region (a few of q's sds) caps the first step; from the second on it is the bound
  // that holds coordinate 0 to 1 a step, where the unbounded run jumps most of the way to 8. The
  // draws are keyed by step, so a run of t + 1 steps repeats the run of t and takes one more.
  test::GaussianTarget free_target((Eigen::VectorXd(3) << 8.0, 4.0, -0.5).finished(),
                                   test::test_precision(3, 0.3));
  auto largest_move = [&](vi::LogDensity& density) {
    double largest = 0, last = 0;
    for (long t = 1; t <= 8; ++t) {
      cfg.max_iterations = t;
      const double now = vi::run_advi(density, cfg, log).q->mean()[0];
      largest = std::max(largest, std::abs(now - last));
      last = now;
    }
    return std::make_pair(largest, last);
  };
  const auto [bounded_move, bounded_end] = largest_move(target);
  CHECK(bounded_move <= 1.0 + 1e-12);
  CHECK(bounded_end > 6.0);  // still on its way, a unit a step
  const auto [free_move, free_end] = largest_move(free_target);
  CHECK(free_move > 2.0);
  CHECK(free_end == doctest::Approx(8.0).epsilon(0.05));
}

TEST_CASE("the stopping rule ends the run when the ELBO settles") {
  // The rule is relative, so the ELBO must be away from 0 for it to mean anything: c = -50.
  test::GaussianTarget target((Eigen::VectorXd(2) << 1.0, -1.0).finished(), test::test_precision(2), -50.0);
  NullLogger log;
  auto cfg = config("meanfield", "adam", 0.1);
  cfg.tol_rel_obj = 0.01;
  cfg.max_iterations = 10000;
  const vi::AdviResult r = vi::run_advi(target, cfg, log);
  CHECK(r.converged);
  CHECK(r.iterations < 10000);
  CHECK(r.iterations % 100 == 0);
  CHECK((r.convergence == "mean" || r.convergence == "median"));
}

TEST_CASE("Stan's eta adaptation picks an eta and the run converges") {
  test::GaussianTarget target((Eigen::VectorXd(2) << 1.0, -1.0).finished(), test::test_precision(2));
  test::RecordingLogger log;
  auto cfg = config("meanfield", "adaptive", 0.0);
  cfg.max_iterations = 2000;
  const vi::AdviResult r = vi::run_advi(target, cfg, log);
  REQUIRE(r.eta.has_value());
  CHECK(log.debugs().size() >= 2);  // one line per eta tried
  CHECK(log.infos().back().find("eta adaptation chose eta = ") == 0);
  CHECK((*r.eta == 100 || *r.eta == 10 || *r.eta == 1 || *r.eta == 0.1 || *r.eta == 0.01));
  CHECK((r.q->mean() - target.m()).norm() < 0.2);
}

TEST_CASE("the same seed gives the same run, bit for bit") {
  test::GaussianTarget target((Eigen::VectorXd(2) << 1.0, -1.0).finished(), test::test_precision(2));
  NullLogger log;
  auto cfg = config("fullrank", "adam", 0.05);
  cfg.max_iterations = 300;
  const vi::AdviResult a = vi::run_advi(target, cfg, log), b = vi::run_advi(target, cfg, log);
  CHECK(a.q->params() == b.q->params());
  cfg.seed = 43;
  const vi::AdviResult c = vi::run_advi(target, cfg, log);
  CHECK(a.q->params() != c.q->params());
}

namespace {
// A density that is -inf on a region: draws there must be redrawn, and a density that is never
// finite must end the run with the inference error.
class HoleyTarget final : public vi::LogDensity {
 public:
  explicit HoleyTarget(double threshold) : threshold_(threshold) {}
  vi::Index dim() const override { return 1; }
  void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                   Eigen::MatrixXd* grad) override {
    for (Eigen::Index s = 0; s < theta.rows(); ++s)
      lp[s] = theta(s, 0) > threshold_ ? -std::numeric_limits<double>::infinity()
                                       : -0.5 * theta(s, 0) * theta(s, 0);
    if (grad) *grad = -theta;
  }

 private:
  double threshold_;
};
}  // namespace

TEST_CASE("non-finite draws are redrawn, and a density that is never finite fails with exit 70") {
  NullLogger log;
  auto cfg = config("meanfield", "adam", 0.05);
  cfg.max_iterations = 200;
  HoleyTarget rare(2.5);  // a few draws per step land above 2.5 at first
  test::RecordingLogger recorded;
  const vi::AdviResult r = vi::run_advi(rare, cfg, recorded);
  CHECK(r.redrawn > 0);
  CHECK(r.q->is_finite());
  // The run reports the redraws through the logger, once.
  REQUIRE(recorded.infos().size() == 1);
  CHECK(recorded.infos()[0] == std::to_string(r.redrawn) +
                                   " draws had a non-finite log density or gradient and were redrawn");

  HoleyTarget never(-1e300);
  try {
    vi::run_advi(never, cfg, log);
    FAIL("expected an inference error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::software);
    CHECK(std::string(e.what()).find("not finite") != std::string::npos);
  }
}

}  // namespace test_advi
