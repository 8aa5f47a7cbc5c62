// exp, log, softplus, log_sigmoid: values against scalar std:: formulas, gradients against
// central differences, at ordinary points, size-1 and empty inputs, NaN/inf, and |x| = 1000
// where the naive formulas overflow.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_elementwise_ops {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
using test::inf;
using test::qnan;

Eigen::ArrayXXd map1(const Eigen::ArrayXXd& x, double (*f)(double)) {
  return x.unaryExpr(f);
}

// Independent scalar references.
double ref_softplus(double x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
double ref_log_sigmoid(double x) {
  return -ref_softplus(-x);
}

const std::vector<Eigen::ArrayXXd> kInputs = {
    arr({{0.3, -1.2, 2.5}, {0.0, 4.0, -7.5}}),  // 2 x 3
    arr({{1.7}}),                               // size 1
    Eigen::ArrayXXd(0, 0),                      // empty
    Eigen::ArrayXXd(0, 3),                      // empty with columns
    arr({{-30.0, 30.0, 1e-8}}),
};
}  // namespace

TEST_CASE("exp") {
  auto f = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::exp(v[0]); };
  auto r = [](const test::Arrays& x) { return map1(x[0], [](double v) { return std::exp(v); }); };
  for (const auto& x : kInputs) check_op("exp", f, r, {x});
  check_op("exp at extremes", f, r, {arr({{-inf, inf, qnan, 800.0, -800.0}})});
}

TEST_CASE("log") {
  auto f = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::log(v[0]); };
  auto r = [](const test::Arrays& x) { return map1(x[0], [](double v) { return std::log(v); }); };
  check_op("log", f, r, {arr({{0.3, 1.2, 2.5}, {1e-3, 4.0, 7.5e5}})});
  check_op("log size 1", f, r, {arr({{2.0}})});
  check_op("log empty", f, r, {Eigen::ArrayXXd(0, 2)});
  check_op("log at extremes", f, r, {arr({{0.0, -1.0, inf, qnan, 1e-300}})});
}

TEST_CASE("softplus is stable in both directions") {
  auto f = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::softplus(v[0]); };
  auto r = [](const test::Arrays& x) { return map1(x[0], ref_softplus); };
  for (const auto& x : kInputs) check_op("softplus", f, r, {x});
  check_op("softplus at +-1000", f, r, {arr({{-1000.0, 1000.0, -745.0, 710.0}})});
  check_op("softplus at extremes", f, r, {arr({{-inf, inf, qnan}})});

  ad::Tape tape;
  Eigen::ArrayXXd x = arr({{1000.0, -1000.0}}), g = Eigen::ArrayXXd::Zero(1, 2);
  ad::Var y = ad::softplus(tape.leaf(x.data(), g.data(), 1, 2));
  CHECK(y.val()(0) == 1000.0);
  CHECK(y.val()(1) == 0.0);
  tape.backward(y);
  CHECK(g(0) == 1.0);  // sigmoid(1000)
  // sigmoid(-1000) = e^-1000 underflows: to 0 with a scalar exp, to ~5e-309 with Eigen's packet
  // exp, which clamps its argument near -709. Either way tiny, and not NaN.
  CHECK(g(1) >= 0.0);
  CHECK(g(1) < 1e-300);
}

TEST_CASE("log_sigmoid is stable in both directions") {
  auto f = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::log_sigmoid(v[0]); };
  auto r = [](const test::Arrays& x) { return map1(x[0], ref_log_sigmoid); };
  for (const auto& x : kInputs) check_op("log_sigmoid", f, r, {x});
  check_op("log_sigmoid at +-1000", f, r, {arr({{-1000.0, 1000.0, -745.0, 710.0}})});
  check_op("log_sigmoid at extremes", f, r, {arr({{-inf, inf, qnan}})});

  ad::Tape tape;
  Eigen::ArrayXXd x = arr({{-1000.0}}), g = Eigen::ArrayXXd::Zero(1, 1);
  ad::Var y = ad::log_sigmoid(tape.leaf(x.data(), g.data(), 1, 1));
  CHECK(y.value() == -1000.0);
  tape.backward(y);
  CHECK(g(0) == 1.0);  // d/dx log sigmoid(x) = sigmoid(-x) -> 1
}

}  // namespace test_elementwise_ops
