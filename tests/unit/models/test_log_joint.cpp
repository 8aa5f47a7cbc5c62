// The batched log joint: against an independent scalar formula, fused against composed, the
// gradient against central differences, and the same bits for any thread count.
#include <doctest/doctest.h>

#include <cmath>

#include "common/error.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "models/log_joint.hpp"
#include "support/model_fixtures.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_log_joint {

using namespace bvi;
using models::LogJoint;

namespace {

// log p(data, theta) written out scalar by scalar in long double: the reference.
double reference_log_joint(const test::SyntheticData& d, const Eigen::VectorXd& theta, bool intercept,
                           const std::vector<double>& loc, const std::vector<double>& scale) {
  const long D = d.x.cols();
  long double lp = 0;
  const double alpha = intercept ? theta[0] : 0.0;
  const long off = intercept ? 1 : 0;
  if (intercept) lp += -0.5L * (alpha / 5.0L) * (alpha / 5.0L) - std::log(5.0L) - 0.5L * std::log(2 * M_PIl);
  for (long j = 0; j < D; ++j) {
    const long double mu = loc.size() == 1 ? loc[0] : loc[j], sd = scale.size() == 1 ? scale[0] : scale[j];
    const long double z = (theta[off + j] - mu) / sd;
    lp += -0.5L * z * z - std::log(sd) - 0.5L * std::log(2 * M_PIl);
  }
  for (long n = 0; n < d.x.rows(); ++n) {
    long double eta = alpha;
    for (long j = 0; j < D; ++j) eta += (long double)d.x(n, j) * theta[off + j];
    // log sigmoid(eta) = -log1p(exp(-eta)); log(1 - sigmoid(eta)) = -log1p(exp(eta))
    lp += d.y[n] == 1.0 ? -std::log1p(std::exp(-eta)) : -std::log1p(std::exp(eta));
  }
  return static_cast<double>(lp);
}

struct Fixture {
  test::SyntheticData data;
  models::Model model;
  reduce::SerialCommunicator comm;
  reduce::ShardPlan plan;
  std::unique_ptr<reduce::ChunkReducer> reducer;
  std::unique_ptr<LogJoint<double>> lj;

  Fixture(long n, long d, bool intercept, bool fused, int threads, long block_rows, std::vector<double> loc,
          std::vector<double> scale)
      : data(test::synthetic_logistic(n, d, 7)),
        model(models::Model::build(test::logistic_config(intercept, loc, scale), test::feature_names(d),
                                   {fused})),
        plan(reduce::ShardPlan::make(n, block_rows)) {
    reducer = std::make_unique<reduce::ChunkReducer>(plan, comm, threads);
    models::DataView<double> view{data.x.data(), data.y.data(), n, d, 0, n};
    lj = std::make_unique<LogJoint<double>>(model, view, *reducer);
  }
};

Eigen::MatrixXd random_draws(long s, long p, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 0.7);
  Eigen::MatrixXd t(s, p);
  for (long i = 0; i < t.size(); ++i) t.data()[i] = normal(rng);
  return t;
}

}  // namespace

TEST_CASE("log joint matches the scalar formula, with and without intercept") {
  for (bool intercept : {false, true}) {
    for (bool fused : {true, false}) {
      const std::vector<double> loc{0.5, -1.0, 0.0, 0.25}, scale{1.0, 2.0, 0.5, 3.0};
      Fixture f(1000, 4, intercept, fused, 2, 64, loc, scale);
      const Eigen::MatrixXd theta = random_draws(7, f.model.dim(), 3);
      Eigen::VectorXd lp(7);
      f.lj->evaluate(theta, lp, nullptr);
      for (long s = 0; s < 7; ++s) {
        const double ref = reference_log_joint(f.data, theta.row(s).transpose(), intercept, loc, scale);
        CHECK(lp[s] == doctest::Approx(ref).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("fused and composed paths agree to 1e-12 and match central differences") {
  const std::vector<double> loc{0.0}, scale{2.0};
  Fixture fused(777, 6, true, true, 1, 50, loc, scale);
  Fixture composed(777, 6, true, false, 1, 50, loc, scale);
  const long P = fused.model.dim();
  const Eigen::MatrixXd theta = random_draws(9, P, 11);
  Eigen::VectorXd lp_f(9), lp_c(9);
  Eigen::MatrixXd g_f, g_c;
  fused.lj->evaluate(theta, lp_f, &g_f);
  composed.lj->evaluate(theta, lp_c, &g_c);
  for (long s = 0; s < 9; ++s) CHECK(std::abs(lp_f[s] - lp_c[s]) <= 1e-12 * std::abs(lp_c[s]));
  CHECK((g_f - g_c).cwiseAbs().maxCoeff() <= 1e-12 * g_c.cwiseAbs().maxCoeff());

  // Central differences of the independent scalar formula.
  for (long s = 0; s < 3; ++s) {
    for (long j = 0; j < P; ++j) {
      Eigen::VectorXd tp = theta.row(s).transpose(), tm = tp;
      const double h = 1e-5;
      tp[j] += h;
      tm[j] -= h;
      const double fd = (reference_log_joint(fused.data, tp, true, loc, scale) -
                         reference_log_joint(fused.data, tm, true, loc, scale)) /
                        (2 * h);
      CHECK(g_f(s, j) == doctest::Approx(fd).epsilon(1e-7));
      CHECK(g_c(s, j) == doctest::Approx(fd).epsilon(1e-7));
    }
  }
}

TEST_CASE("value-only and gradient passes give the same log joint") {
  Fixture f(500, 3, false, true, 1, 64, {0.0}, {1.0});
  const Eigen::MatrixXd theta = random_draws(5, f.model.dim(), 5);
  Eigen::VectorXd a(5), b(5);
  Eigen::MatrixXd g;
  f.lj->evaluate(theta, a, nullptr);
  f.lj->evaluate(theta, b, &g);
  CHECK((a - b).cwiseAbs().maxCoeff() <= 1e-12 * b.cwiseAbs().maxCoeff());
}

TEST_CASE("the same bits for 1, 2 and 3 threads") {
  const std::vector<double> loc{0.0}, scale{1.5};
  // 16 draws fill whole cache lines; 7 draws with an intercept leave slots misaligned unless the
  // reducer pads them, which is what this case guards.
  for (long S : {16L, 7L}) {
    for (bool fused : {true, false}) {
      Eigen::VectorXd lp1(S), lp(S);
      Eigen::MatrixXd g1, g;
      Fixture one(5000, 8, true, fused, 1, 64, loc, scale);
      const Eigen::MatrixXd theta = random_draws(S, one.model.dim(), 2);
      one.lj->evaluate(theta, lp1, &g1);
      for (int threads : {2, 3}) {
        Fixture many(5000, 8, true, fused, threads, 64, loc, scale);
        many.lj->evaluate(theta, lp, &g);
        CHECK(lp == lp1);
        CHECK(g == g1);
      }
    }
  }
}

TEST_CASE("large draw batches are split without changing the values") {
  Fixture f(300, 3, true, true, 1, 64, {0.0}, {1.0});
  const Eigen::MatrixXd theta = random_draws(600, f.model.dim(), 9);  // > max_batch (256)
  Eigen::VectorXd lp(600);
  Eigen::MatrixXd g;
  f.lj->evaluate(theta, lp, &g);
  for (long s : {0L, 255L, 256L, 599L}) {
    Eigen::VectorXd one(1);
    Eigen::MatrixXd g1;
    f.lj->evaluate(theta.row(s), one, &g1);
    CHECK(one[0] == doctest::Approx(lp[s]).epsilon(1e-13));
    CHECK((g1.row(0) - g.row(s)).cwiseAbs().maxCoeff() <= 1e-12 * (1 + g.row(s).cwiseAbs().maxCoeff()));
  }
}

TEST_CASE("per-coefficient hyperparameter arrays of the wrong length are config errors") {
  CHECK_THROWS_WITH_AS(
      models::Model::build(test::logistic_config(false, {0.0, 1.0}, {1.0}), test::feature_names(3)),
      "/model/priors/beta/normal/loc: has 2 entries, but beta has 3 coefficients (one per "
      "feature); give one number or one per coefficient",
      bvi::Error);
}

}  // namespace test_log_joint
