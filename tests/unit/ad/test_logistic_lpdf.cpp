// logistic_lpdf against a double formula of scipy.stats.logistic.logpdf written here, with every
// broadcasting shape, the tails where exp(-z) overflows, and the NaN a bad scale gives.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_logistic_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// exp(-z) / (scale (1 + exp(-z))^2) for moderate z; beyond |z| = 30, where exp(-z) overflows for
// z < -709, log p = -|z| - 2 exp(-|z|) - log(scale) to within exp(-60).
double logistic(double x, double loc, double scale) {
  if (!(scale > 0)) return qnan;
  const double z = (x - loc) / scale;
  if (std::abs(z) > 30) return -std::abs(z) - 2 * std::exp(-std::abs(z)) - std::log(scale);
  const double e = std::exp(-z);
  return std::log(e / (scale * (1 + e) * (1 + e)));
}
const test::RefFn ref = test::broadcast_ref([](const std::vector<double>& a) { return logistic(a[0], a[1], a[2]); });
const test::AdFn f = test::as_ad(ad::logistic_lpdf);
}  // namespace

TEST_CASE("logistic_lpdf: values and gradients under every broadcasting shape") {
  const Eigen::ArrayXXd x = arr({{0.3, -1.2, 2.5, 7.0}, {0.1, 4.0, -7.5, -0.4}, {1.7, -3.3, 0.0, 62.0}});
  test::check_broadcasting("logistic_lpdf", f, ref, x,
                           {{{0.0, 1.0, -1.0, 2.5}, {0.2, -0.4, 1.1}}, {{1.0, 0.5, 10.0, 2.0}, {0.7, 1.9, 3.3}}});
}

TEST_CASE("logistic_lpdf: tails where exp overflows, and non-finite or invalid inputs") {
  check_op("tails", f, ref, {arr({{800.0, -800.0, 35.0, -1e3}}), arr({{0.5}}), arr({{1.0}})});
  check_op("far tails", f, ref, {arr({{1e10, -1e300}}), arr({{0.5}}), arr({{1.0}})}, test::x_gradient_only());
  check_op("non-finite x", f, ref, {arr({{inf, -inf, qnan}}), arr({{0.0}}), arr({{1.0}})}, test::values_only());
  check_op("non-finite loc and scale", f, ref, {arr({{1.0}}), arr({{inf, -inf, qnan, 0.0}}), arr({{1.0, 1.0, 1.0, inf}})},
           test::values_only());
  check_op("invalid scale gives NaN", f, ref, {arr({{1.0}}), arr({{0.0}}), arr({{0.0, -1.0, qnan}})},
           test::values_only());
}

}  // namespace test_logistic_lpdf
