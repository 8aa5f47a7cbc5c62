// Where the exact method starts (ExpectedLikelihood::initial_mean): the intercept at the response's
// centre on the link's scale for the log and identity links, from the rows' weighted moments and
// less the mean offset, and 0 for the logit and probit links; and the location families' rows
// taken relative to the intercept, so that a response far from zero loses no bits.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "exact_fixtures.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_exact_start {

using namespace bvi;
using test::PriorKind;

namespace {

// The start the test expects, from the data alone: weighted means of y, log y and log(y + 1/2).
// (gamma_log's data have no offset.)
double expected_start(const std::string& lik, const Eigen::VectorXd& y, const Eigen::VectorXd& w,
                      const Eigen::VectorXd& offset) {
  double W = 0, sy = 0, slog = 0, shalf = 0, soff = 0;
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    W += w[i];
    sy += w[i] * y[i];
    if (y[i] > 0) slog += w[i] * std::log(y[i]);
    shalf += w[i] * std::log(y[i] + 0.5);
    if (offset.size()) soff += w[i] * offset[i];
  }
  const double mean_offset = soff / W;
  if (lik == "poisson_log") return std::min(std::log(sy / W), shalf / W) - mean_offset;
  if (lik == "negative_binomial_log") return std::log(sy / W) - mean_offset;
  if (lik == "gamma_log") return 0.5 * (slog / W + std::log(sy / W));
  if (lik == "lognormal") return slog / W;
  if (lik == "normal") return sy / W;
  return 0.0;  // logit and probit links: no start of their own
}

}  // namespace

TEST_CASE("the exact method starts the intercept at the response's centre on the link's scale") {
  for (const char* lik : {"bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log", "normal",
                          "negative_binomial_log", "lognormal", "gamma_log", "beta_logit"}) {
    for (bool weighted : {false, true}) {
      INFO(lik << (weighted ? " weighted" : ""));
      test::ExactFixture f(lik, PriorKind::closed, 300, 4);
      Eigen::VectorXd w = Eigen::VectorXd::Ones(f.data.y.size());
      if (weighted)
        for (Eigen::Index i = 0; i < w.size(); ++i) w[i] = double(i % 4) * 0.5;  // some rows weigh 0
      models::DataView<double> view = f.view();
      if (weighted) view.weight = w.data();
      models::ExpectedLogJoint<double> expected(f.model, view, *f.reducer, 5);
      const Eigen::VectorXd m = expected.initial_mean();
      const double want = expected_start(lik, f.data.y, w, f.data.offset);
      CHECK(std::abs(m[0] - want) <= 1e-12 * (1.0 + std::abs(want)));
      // The population effects start at 0 whatever the response.
      CHECK(m.segment(1, 4).cwiseAbs().maxCoeff() == 0.0);
      if (std::string(lik) == "normal") {
        // sigma's log at the weighted sd of y (frequency weights: sum w - 1 degrees of freedom).
        double W = 0, s1 = 0, s2 = 0;
        for (Eigen::Index i = 0; i < w.size(); ++i) {
          W += w[i];
          s1 += w[i] * f.data.y[i];
          s2 += w[i] * f.data.y[i] * f.data.y[i];
        }
        const Eigen::Index sigma = f.model.likelihood().scale_column();
        CHECK(std::abs(m[sigma] - 0.5 * std::log((s2 - s1 * s1 / W) / (W - 1.0))) <= 1e-12);
      }
    }
  }
}

TEST_CASE("every count 0 leaves a Poisson intercept's start at 0") {
  test::ExactFixture f("poisson_log", PriorKind::closed, 50, 2);
  f.data.y.setZero();
  f.data.offset.setZero();
  models::ExpectedLogJoint<double> expected(f.model, f.view(), *f.reducer, 5);
  CHECK(expected.initial_mean()[0] == 0.0);
}

TEST_CASE("the normal likelihood's expected log joint loses no bits far from zero") {
  // The same rows and q, once as they are and once shifted by 10^8 in y and in the intercept's
  // mean, both representable exactly (multiples of 2^-20 below 2^27), so the two are the same
  // problem to the bit. Without the intercept taken out of y - eta each row's residual was
  // rounded at 10^8's spacing, 1.5e-8: the ELBO of 4000 rows differed by some 1e-7.
  const double shift = 1e8, grid = std::ldexp(1.0, -20);
  test::ExactFixture near("normal", PriorKind::closed, 4000, 5);
  for (auto& v : near.data.y) v = std::round(v / grid) * grid;
  test::ExactFixture far("normal", PriorKind::closed, 4000, 5);
  far.data.y = near.data.y.array() + shift;
  models::ExpectedLogJoint<double> e_near(near.model, near.view(), *near.reducer, 5);
  models::ExpectedLogJoint<double> e_far(far.model, far.view(), *far.reducer, 5);
  for (bool dense : {false, true}) {
    INFO((dense ? "fullrank" : "meanfield"));
    vi::GaussianQ q = test::random_q(near.model.dim(), dense, 7, 0.02);
    q.mean[0] = std::round((q.mean[0] + 0.3) / grid) * grid;  // alpha, near the data's own 0.3
    vi::GaussianQ q_far = q;
    q_far.mean[0] += shift;
    vi::ExpectationGradient g_near, g_far;
    const double v_near = e_near.evaluate(q, &g_near), v_far = e_far.evaluate(q_far, &g_far);
    // The prior sees alpha itself (normal(0, 5) at 10^8: a different value, the same gradient
    // elsewhere), so compare the likelihood's part: the gradient in every coordinate but alpha's.
    const Eigen::Index P = near.model.dim();
    for (Eigen::Index j = 1; j < P; ++j) {
      INFO("coordinate " << j);
      CHECK(g_far.d_mean[j] == doctest::Approx(g_near.d_mean[j]).epsilon(1e-12).scale(1.0));
    }
    CHECK(std::isfinite(v_near));
    CHECK(std::isfinite(v_far));
  }
}

}  // namespace test_exact_start
