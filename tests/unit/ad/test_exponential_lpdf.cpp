// exponential_lpdf against a double formula of scipy.stats.expon.logpdf(x, scale=1/rate) written
// here, with every broadcasting shape, x at and below the edge of the support, the tail, and the
// NaN a bad rate gives.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_exponential_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// rate exp(-rate x) on x >= 0 (scipy's support includes 0); in logs once the density underflows.
double exponential(double x, double rate) {
  if (!(rate > 0)) return qnan;
  if (x < 0) return -inf;
  if (rate * x > 500) return std::log(rate) - rate * x;
  return std::log(rate * std::exp(-rate * x));
}
const test::RefFn ref = test::broadcast_ref([](const std::vector<double>& a) { return exponential(a[0], a[1]); });
const test::AdFn f = test::as_ad(ad::exponential_lpdf);
}  // namespace

TEST_CASE("exponential_lpdf: values and gradients under every broadcasting shape") {
  const Eigen::ArrayXXd x = arr({{0.3, 1.2, 2.5, 7.0}, {0.1, 4.0, 0.0, 0.4}, {1.7, -3.3, 0.02, 12.0}});
  test::check_broadcasting("exponential_lpdf", f, ref, x, {{{1.0, 0.5, 10.0, 2.0}, {0.7, 1.9, 3.3}}});
}

TEST_CASE("exponential_lpdf: tails, non-finite and invalid inputs") {
  check_op("tail", f, ref, {arr({{1e3, 1e300, 1e-300}}), arr({{0.5}})});
  check_op("non-finite x", f, ref, {arr({{inf, -inf, qnan}}), arr({{1.0}})}, test::values_only());
  check_op("invalid rate gives NaN", f, ref, {arr({{1.0, -1.0, 1.0}}), arr({{0.0, -1.0, qnan}})},
           test::values_only());
}

}  // namespace test_exponential_lpdf
