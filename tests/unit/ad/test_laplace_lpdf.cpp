// laplace_lpdf against a double formula of scipy.stats.laplace.logpdf written here, with every
// broadcasting shape, tails where the density underflows, the kink at x = loc, and the NaN a bad
// scale gives.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_laplace_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// exp(-|x - loc|/scale) / (2 scale), in logs (the density itself underflows from |z| ~ 745).
double laplace(double x, double loc, double scale) {
  if (!(scale > 0)) return qnan;
  return std::log(0.5 / scale) - std::abs(x - loc) / scale;
}
const test::RefFn ref = test::broadcast_ref([](const std::vector<double>& a) { return laplace(a[0], a[1], a[2]); });
const test::AdFn f = test::as_ad(ad::laplace_lpdf);
}  // namespace

TEST_CASE("laplace_lpdf: values and gradients under every broadcasting shape") {
  // No x within a difference step of a loc: |x - loc| has a kink there.
  const Eigen::ArrayXXd x = arr({{0.3, -1.2, 2.5, 7.0}, {0.1, 4.0, -7.5, -0.4}, {1.7, -3.3, 0.05, 12.0}});
  test::check_broadcasting("laplace_lpdf", f, ref, x,
                           {{{0.0, 1.0, -1.0, 2.5}, {0.2, -0.45, 1.1}}, {{1.0, 0.5, 10.0, 2.0}, {0.7, 1.9, 3.3}}});
}

TEST_CASE("laplace_lpdf: at x = loc the gradient is the mean of the one-sided ones") {
  // d/dx is -1/scale to the right and +1/scale to the left; the op gives 0, as central
  // differences do, and d/dscale = -1/scale there.
  ad::Tape tape;
  double x = 2.0, gx = 0.0, scale = 3.0, gs = 0.0;
  const ad::Var out = ad::laplace_lpdf(tape.leaf(&x, &gx, 1, 1), tape.constant(2.0), tape.leaf(&scale, &gs, 1, 1));
  tape.backward(out);
  CHECK(gx == 0.0);
  CHECK(gs == doctest::Approx(-1.0 / 3.0).epsilon(1e-15));
  check_op("at loc", f, ref, {arr({{2.0}}), arr({{2.0}}), arr({{3.0}})});
}

TEST_CASE("laplace_lpdf: tails and non-finite or invalid inputs") {
  check_op("tail where the density underflows", f, ref, {arr({{800.0, -2e3}}), arr({{0.5}}), arr({{1.0}})});
  check_op("far tail", f, ref, {arr({{1e5, 1e300}}), arr({{0.5}}), arr({{1.0}})}, test::x_gradient_only());
  check_op("non-finite x", f, ref, {arr({{inf, -inf, qnan}}), arr({{0.0}}), arr({{1.0}})}, test::values_only());
  check_op("non-finite loc and scale", f, ref, {arr({{1.0}}), arr({{inf, -inf, qnan, 0.0}}), arr({{1.0, 1.0, 1.0, inf}})},
           test::values_only());
  check_op("invalid scale gives NaN", f, ref, {arr({{1.0}}), arr({{0.0}}), arr({{0.0, -1.0, qnan}})},
           test::values_only());
}

}  // namespace test_laplace_lpdf
