// half_normal_lpdf against a double formula of scipy.stats.halfnorm.logpdf written here, with
// every broadcasting shape, x at and below the edge of the support, the tail, and the NaN a bad
// scale gives.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_half_normal_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// sqrt(2/pi)/scale exp(-z^2/2) on x >= 0 (scipy's support includes 0); in logs past z = 30,
// where the density underflows.
double half_normal(double x, double scale) {
  if (!(scale > 0)) return qnan;
  if (x < 0) return -inf;
  const double z = x / scale;
  const double c = std::sqrt(2 / M_PI) / scale;
  if (z > 30) return std::log(c) - std::pow(z / std::sqrt(2.0), 2);
  return std::log(c * std::exp(-z * z / 2));
}
const test::RefFn ref = test::broadcast_ref([](const std::vector<double>& a) { return half_normal(a[0], a[1]); });
const test::AdFn f = test::as_ad(ad::half_normal_lpdf);
}  // namespace

TEST_CASE("half_normal_lpdf: values and gradients under every broadcasting shape") {
  // 0 and a negative x: the edge and the outside of the support.
  const Eigen::ArrayXXd x = arr({{0.3, 1.2, 2.5, 7.0}, {0.1, 4.0, 0.0, 0.4}, {1.7, -3.3, 0.02, 12.0}});
  test::check_broadcasting("half_normal_lpdf", f, ref, x, {{{1.0, 0.5, 10.0, 2.0}, {0.7, 1.9, 3.3}}});
}

TEST_CASE("half_normal_lpdf: tails, non-finite and invalid inputs") {
  check_op("tail", f, ref, {arr({{40.0, 1e100}}), arr({{1.0}})});
  // 1.5e154^2 overflows, the value -1.1e308 does not (d/d scale = z^2/scale does: no check).
  check_op("far tail", f, ref, {arr({{1.5e154}}), arr({{1.0}})}, test::x_gradient_only());
  check_op("non-finite x", f, ref, {arr({{inf, -inf, qnan, -0.0}}), arr({{1.0}})}, test::values_only());
  check_op("invalid scale gives NaN, also outside the support", f, ref,
           {arr({{1.0, -1.0, 1.0, 1.0}}), arr({{0.0, -1.0, qnan, inf}})}, test::values_only());
}

}  // namespace test_half_normal_lpdf
