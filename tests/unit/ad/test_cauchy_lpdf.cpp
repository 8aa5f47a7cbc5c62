// cauchy_lpdf against a double formula of scipy.stats.cauchy.logpdf written here, with every
// broadcasting shape, the far tail where z^2 overflows, and the NaN a bad scale gives.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_cauchy_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// 1 / (pi scale (1 + z^2)); beyond |z| = 1e100 the 1 is far below rounding and z^2 may overflow.
double cauchy(double x, double loc, double scale) {
  if (!(scale > 0)) return qnan;
  const double z = (x - loc) / scale;
  if (std::abs(z) > 1e100) return -std::log(M_PI * scale) - 2 * std::log(std::abs(z));
  return -std::log(M_PI * scale * (1 + z * z));
}
const test::RefFn ref = test::broadcast_ref([](const std::vector<double>& a) { return cauchy(a[0], a[1], a[2]); });
const test::AdFn f = test::as_ad(ad::cauchy_lpdf);
}  // namespace

TEST_CASE("cauchy_lpdf: values and gradients under every broadcasting shape") {
  const Eigen::ArrayXXd x = arr({{0.3, -1.2, 2.5, 7.0}, {0.1, 4.0, -7.5, -0.4}, {1.7, -3.3, 0.0, 120.0}});
  test::check_broadcasting("cauchy_lpdf", f, ref, x,
                           {{{0.0, 1.0, -1.0, 2.5}, {0.2, -0.4, 1.1}}, {{1.0, 0.5, 10.0, 2.0}, {0.7, 1.9, 3.3}}});
}

TEST_CASE("cauchy_lpdf: far tails stay finite, with gradients") {
  check_op("far tail", f, ref, {arr({{1e200, -3e160, 2e154, 1e8}}), arr({{1.0}}), arr({{0.5}})});
  check_op("tiny scale", f, ref, {arr({{1e-3, -2e-3}}), arr({{0.0}}), arr({{1e-6}})});
}

TEST_CASE("cauchy_lpdf: non-finite and invalid inputs") {
  check_op("non-finite x", f, ref, {arr({{inf, -inf, qnan}}), arr({{0.0}}), arr({{1.0}})}, test::values_only());
  check_op("non-finite loc and scale", f, ref, {arr({{1.0}}), arr({{inf, -inf, qnan, 0.0}}), arr({{1.0, 1.0, 1.0, inf}})},
           test::values_only());
  check_op("invalid scale gives NaN", f, ref, {arr({{1.0}}), arr({{0.0}}), arr({{0.0, -1.0, qnan}})},
           test::values_only());
}

}  // namespace test_cauchy_lpdf
