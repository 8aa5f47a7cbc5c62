// The optimizers' update rules against hand-computed steps, and their state round trip.
#include <doctest/doctest.h>

#include <cmath>

#include "inference/optimizers/adam.hpp"
#include "inference/optimizers/adaptive_step.hpp"
#include "inference/optimizers/sgd.hpp"
#include "inference/stopping_rule.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_optimizers {

using namespace bvi;

TEST_CASE("sgd ascends by learning_rate times the gradient") {
  vi::Sgd opt(0.1);
  Eigen::VectorXd x(2), g(2);
  x << 1, 2;
  g << 3, -4;
  opt.step(x, g, 1);
  CHECK(x[0] == doctest::Approx(1.3));
  CHECK(x[1] == doctest::Approx(1.6));
}

TEST_CASE("adam's first steps move by about the learning rate, in the gradient's sign") {
  // After bias correction the first step is lr * g / (|g| + eps) = +-lr.
  vi::Adam opt(0.05, 0.0, 0.9, 0.999, 1e-8);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(2), g(2);
  g << 100.0, -1e-3;
  opt.step(x, g, 1);
  CHECK(x[0] == doctest::Approx(0.05).epsilon(1e-6));
  CHECK(x[1] == doctest::Approx(-0.05).epsilon(1e-4));
  // Second step, same gradient: m/(1-b1^2) = g, v/(1-b2^2) = g^2 -> another +-lr.
  opt.step(x, g, 2);
  CHECK(x[0] == doctest::Approx(0.1).epsilon(1e-6));
  // decay: lr_t = lr / sqrt(1 + decay t)
  vi::Adam decayed(0.05, 3.0, 0.9, 0.999, 1e-8);
  Eigen::VectorXd y = Eigen::VectorXd::Zero(2);
  decayed.step(y, g, 1);
  CHECK(y[0] == doctest::Approx(0.05 / 2.0).epsilon(1e-6));
}

TEST_CASE("adam state round trips") {
  vi::Adam a(0.1, 0.0, 0.9, 0.999, 1e-8), b(0.1, 0.0, 0.9, 0.999, 1e-8);
  Eigen::VectorXd x = Eigen::VectorXd::Ones(3), y, g = Eigen::VectorXd::LinSpaced(3, -1, 1);
  a.step(x, g, 1);
  y = x;
  b.set_state(a.state());
  a.step(x, g, 2);
  b.step(y, g, 2);
  CHECK(x == y);
}

TEST_CASE("Stan's adaptive step-size sequence") {
  // s_1 = g^2; rho_1 = eta; step = eta g / (tau + |g|)
  vi::AdaptiveStep opt(1.0, 1.0, 0.1);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(1), g(1);
  g << 3.0;
  opt.step(x, g, 1);
  CHECK(x[0] == doctest::Approx(3.0 / 4.0));
  // s_2 = 0.1 * 1 + 0.9 * 9 = 8.2; rho_2 = 2^(-1/2); step = rho_2 * 1 / (1 + sqrt(8.2))
  g << 1.0;
  opt.step(x, g, 2);
  CHECK(x[0] == doctest::Approx(0.75 + std::pow(2.0, -0.5) / (1 + std::sqrt(8.2))).epsilon(1e-12));
}

TEST_CASE("stopping rule: Stan's circular buffer of relative changes") {
  // max_iterations 1000, eval_elbo 100 -> buffer of max(0.1 * 10, 2) = 2.
  vi::StoppingRule rule(0.01, 1000, 100);
  CHECK(std::isinf(rule.record(-100.0)));  // the first evaluation has no predecessor
  CHECK_FALSE(rule.converged());
  CHECK(rule.record(-99.0) == doctest::Approx(1.0 / 99.0));  // |(-100 - -99) / -99|
  CHECK_FALSE(rule.converged());  // buffer [inf, 0.0101]: mean inf, median (upper) inf
  rule.record(-98.9);
  // buffer [0.0101, 0.00101]: mean 0.0056 < 0.01
  CHECK(rule.converged());
  CHECK(rule.reason() == "mean");

  vi::StoppingRule never(std::nullopt, 1000, 100);
  for (int i = 0; i < 10; ++i) never.record(-1.0);
  CHECK_FALSE(never.converged());

  // The median fires on its own when one outlier holds the mean up.
  vi::StoppingRule med(0.01, 10000, 100);  // buffer of 10
  med.record(-100);
  for (int i = 0; i < 6; ++i) med.record(-100.0 - (i % 2) * 1e-4);
  CHECK(med.converged());
  CHECK(med.reason() == "median");
}

}  // namespace test_optimizers
