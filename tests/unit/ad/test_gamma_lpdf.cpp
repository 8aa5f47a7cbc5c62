// gamma_lpdf against a double formula of scipy.stats.gamma.logpdf(x, a=shape, scale=1/rate)
// written here, with every broadcasting shape of x, shape and rate, x at and below the edge of
// the support (scipy's xlogy convention at x = 0), tails, and the NaN a bad shape or rate gives.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_gamma_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// rate^shape x^(shape-1) exp(-rate x) / Gamma(shape) on x >= 0. At x = 0 the density is rate for
// shape 1 and its limit otherwise (0 or inf); at x = inf it is 0 (scipy: NaN for shape > 1).
double gamma(double x, double shape, double rate) {
  if (!(shape > 0) || !(rate > 0)) return qnan;
  if (x < 0 || x == inf) return -inf;
  if (x == 0) return shape == 1 ? std::log(rate) : shape < 1 ? inf : -inf;
  return shape * std::log(rate) + (shape - 1) * std::log(x) - rate * x - std::lgamma(shape);
}
const test::RefFn ref = test::broadcast_ref([](const std::vector<double>& a) { return gamma(a[0], a[1], a[2]); });
const test::AdFn f = test::as_ad(ad::gamma_lpdf);
}  // namespace

TEST_CASE("gamma_lpdf: values and gradients under every broadcasting shape") {
  const Eigen::ArrayXXd x = arr({{0.3, 1.2, 2.5, 7.0}, {0.1, 4.0, 0.0, 0.4}, {1.7, -3.3, 0.02, 12.0}});
  test::check_broadcasting("gamma_lpdf", f, ref, x,
                           {{{0.5, 1.0, 2.0, 7.5}, {0.8, 3.0, 40.0}}, {{3.0, 0.1, 1.0, 20.0}, {0.7, 1.9, 3.3}}});
}

TEST_CASE("gamma_lpdf: tails, the edge of the support, non-finite and invalid inputs") {
  // The density overflows near 0 for shape < 1 and underflows far out.
  check_op("tails", f, ref, {arr({{1e-300, 1e-20, 800.0}}), arr({{0.5}}), arr({{1.0}})});
  check_op("far tail", f, ref, {arr({{1e300}}), arr({{0.5}}), arr({{1.0}})}, test::x_gradient_only());
  check_op("x = 0 with shape 1, below 1, above 1", f, ref, {arr({{0.0}}), arr({{1.0, 0.5, 2.0}}), arr({{2.0}})},
           test::values_only());
  check_op("non-finite x", f, ref, {arr({{inf, -inf, qnan}}), arr({{2.0}}), arr({{1.0}})}, test::values_only());
  check_op("invalid shape and rate give NaN", f, ref,
           {arr({{1.0, -1.0, 1.0, 1.0, -1.0, 1.0}}), arr({{0.0, -1.0, qnan, 2.0, 2.0, 2.0}}),
            arr({{1.0, 1.0, 1.0, 0.0, -1.0, qnan}})},
           test::values_only());
}

TEST_CASE("gamma_lpdf: at x = 0 with shape 1 the value is log(rate) and d/dx = -rate") {
  ad::Tape tape;
  double x = 0.0, gx = 0.0;
  const ad::Var out = ad::gamma_lpdf(tape.leaf(&x, &gx, 1, 1), tape.constant(1.0), tape.constant(2.0));
  tape.backward(out);
  CHECK(out.value() == doctest::Approx(std::log(2.0)).epsilon(1e-15));
  CHECK(gx == -2.0);
}

}  // namespace test_gamma_lpdf
