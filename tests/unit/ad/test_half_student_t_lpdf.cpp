// half_student_t_lpdf against a double formula written here (twice scipy.stats.t.logpdf's
// density with loc 0, on x >= 0), with every broadcasting shape of x, df and scale, the far tail
// where z^2 overflows, and the NaN an invalid df or scale gives.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_half_student_t_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// 2 Gamma((df+1)/2) / (Gamma(df/2) sqrt(df pi) scale) (1 + z^2/df)^(-(df+1)/2) on x >= 0.
double half_student_t(double x, double df, double scale) {
  if (!(df > 0) || !(scale > 0)) return qnan;
  if (x < 0) return -inf;
  const double z = x / scale;
  const double log_kernel = z > 1e100 ? 2 * std::log(z) - std::log(df) : std::log1p(z * z / df);
  return std::log(2.0) + std::lgamma((df + 1) / 2) - std::lgamma(df / 2) - 0.5 * std::log(df * M_PI) -
         std::log(scale) - (df + 1) / 2 * log_kernel;
}
const test::RefFn ref =
    test::broadcast_ref([](const std::vector<double>& a) { return half_student_t(a[0], a[1], a[2]); });
const test::AdFn f = test::as_ad(ad::half_student_t_lpdf);
}  // namespace

TEST_CASE("half_student_t_lpdf: values and gradients under every broadcasting shape") {
  const Eigen::ArrayXXd x = arr({{0.3, 1.2, 2.5, 7.0}, {0.1, 4.0, 0.0, 0.4}, {1.7, -3.3, 0.02, 12.0}});
  test::check_broadcasting("half_student_t_lpdf", f, ref, x,
                           {{{0.7, 3.0, 30.0, 80.0}, {1.5, 5.0, 45.0}}, {{1.0, 0.5, 10.0, 2.0}, {0.7, 1.9, 3.3}}});
}

TEST_CASE("half_student_t_lpdf: far tails, non-finite and invalid inputs") {
  check_op("far tail", f, ref, {arr({{1e250, 3e154, 1e5}}), arr({{2.0}}), arr({{1.0}})});
  check_op("non-finite x", f, ref, {arr({{inf, -inf, qnan}}), arr({{3.0}}), arr({{1.0}})}, test::values_only());
  check_op("invalid df and scale give NaN", f, ref,
           {arr({{1.0, -1.0, 1.0, 1.0, -1.0, 1.0}}), arr({{0.0, -1.0, qnan, 2.0, 2.0, 2.0}}),
            arr({{1.0, 1.0, 1.0, 0.0, -1.0, qnan}})},
           test::values_only());
}

}  // namespace test_half_student_t_lpdf
