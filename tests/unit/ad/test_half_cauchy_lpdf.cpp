// half_cauchy_lpdf against a double formula of scipy.stats.halfcauchy.logpdf written here, with
// every broadcasting shape, x at and below the edge of the support, the far tail where z^2
// overflows, and the NaN a bad scale gives.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_half_cauchy_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// 2 / (pi scale (1 + z^2)) on x >= 0; beyond z = 1e100 in logs.
double half_cauchy(double x, double scale) {
  if (!(scale > 0)) return qnan;
  if (x < 0) return -inf;
  const double z = x / scale;
  if (z > 1e100) return std::log(2 / (M_PI * scale)) - 2 * std::log(z);
  return std::log(2 / (M_PI * scale * (1 + z * z)));
}
const test::RefFn ref = test::broadcast_ref([](const std::vector<double>& a) { return half_cauchy(a[0], a[1]); });
const test::AdFn f = test::as_ad(ad::half_cauchy_lpdf);
}  // namespace

TEST_CASE("half_cauchy_lpdf: values and gradients under every broadcasting shape") {
  const Eigen::ArrayXXd x = arr({{0.3, 1.2, 2.5, 7.0}, {0.1, 4.0, 0.0, 0.4}, {1.7, -3.3, 0.02, 120.0}});
  test::check_broadcasting("half_cauchy_lpdf", f, ref, x, {{{1.0, 0.5, 10.0, 2.0}, {0.7, 1.9, 3.3}}});
}

TEST_CASE("half_cauchy_lpdf: far tails, non-finite and invalid inputs") {
  check_op("far tail", f, ref, {arr({{1e300, 3e154, 1e7}}), arr({{2.0}})});
  check_op("non-finite x", f, ref, {arr({{inf, -inf, qnan}}), arr({{1.0}})}, test::values_only());
  check_op("invalid scale gives NaN", f, ref, {arr({{1.0, -1.0, 1.0, 1.0}}), arr({{0.0, -1.0, qnan, inf}})},
           test::values_only());
}

}  // namespace test_half_cauchy_lpdf
