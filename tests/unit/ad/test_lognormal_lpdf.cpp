// lognormal_lpdf against a double formula of scipy.stats.lognorm.logpdf(x, s=scale,
// scale=exp(loc)) written here, with every broadcasting shape, x at and below 0, tails, and the
// NaN a bad scale gives.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_lognormal_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// The normal density of log x, over x (the Jacobian); 0 at x <= 0 (scipy's support is open).
double lognormal(double x, double loc, double scale) {
  if (!(scale > 0)) return qnan;
  if (x <= 0) return -inf;
  const double u = (std::log(x) - loc) / scale;
  return -0.5 * u * u - std::log(scale * std::sqrt(2 * M_PI)) - std::log(x);
}
const test::RefFn ref = test::broadcast_ref([](const std::vector<double>& a) { return lognormal(a[0], a[1], a[2]); });
const test::AdFn f = test::as_ad(ad::lognormal_lpdf);
}  // namespace

TEST_CASE("lognormal_lpdf: values and gradients under every broadcasting shape") {
  const Eigen::ArrayXXd x = arr({{0.3, 1.2, 2.5, 7.0}, {0.1, 4.0, 0.0, 0.4}, {1.7, -3.3, 0.02, 12.0}});
  test::check_broadcasting("lognormal_lpdf", f, ref, x,
                           {{{0.0, 1.0, -1.0, 2.5}, {0.2, -0.4, 1.1}}, {{1.0, 0.5, 10.0, 2.0}, {0.7, 1.9, 3.3}}});
}

TEST_CASE("lognormal_lpdf: tails, non-finite and invalid inputs") {
  check_op("tails", f, ref, {arr({{1e-300, 1e-6, 1e6, 1e300}}), arr({{0.0}}), arr({{1.0}})});
  check_op("non-finite x", f, ref, {arr({{inf, -inf, qnan, 0.0}}), arr({{0.0}}), arr({{1.0}})}, test::values_only());
  check_op("non-finite loc and scale", f, ref, {arr({{1.0}}), arr({{inf, -inf, qnan, 0.0}}), arr({{1.0, 1.0, 1.0, inf}})},
           test::values_only());
  check_op("invalid scale gives NaN", f, ref, {arr({{1.0, -1.0}}), arr({{0.0}}), arr({{0.0, -1.0, qnan}})},
           test::values_only());
}

}  // namespace test_lognormal_lpdf
