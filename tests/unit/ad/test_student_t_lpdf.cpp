// student_t_lpdf against a double formula of scipy.stats.t.logpdf written here, with every
// broadcasting shape of x, df, loc and scale, the far tail where z^2 overflows, the normal limit
// df = inf, and the NaN an invalid df or scale gives. Reference values from scipy and mpmath,
// gradients included, are in tests/unit/models/test_prior_families.cpp.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_student_t_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// t_df(z)/scale: Gamma((df+1)/2) / (Gamma(df/2) sqrt(df pi) scale) (1 + z^2/df)^(-(df+1)/2). In the
// far tail, log(1 + z^2/df) = 2 log|z| - log(df) up to df/z^2 < 1e-200 (and z^2 itself overflows).
double student_t(double x, double df, double loc, double scale) {
  if (!(df > 0) || !(scale > 0)) return qnan;
  const double z = (x - loc) / scale;
  if (std::isinf(df)) return -0.5 * z * z - std::log(scale * std::sqrt(2 * M_PI));
  const double log_kernel = std::abs(z) > 1e100 ? 2 * std::log(std::abs(z)) - std::log(df) : std::log1p(z * z / df);
  return std::lgamma((df + 1) / 2) - std::lgamma(df / 2) - 0.5 * std::log(df * M_PI) - std::log(scale) -
         (df + 1) / 2 * log_kernel;
}
const test::RefFn ref = test::broadcast_ref([](const std::vector<double>& a) { return student_t(a[0], a[1], a[2], a[3]); });
const test::AdFn f = test::as_ad(ad::student_t_lpdf);
}  // namespace

TEST_CASE("student_t_lpdf: values and gradients under every broadcasting shape") {
  const Eigen::ArrayXXd x = arr({{0.3, -1.2, 2.5, 7.0}, {0.1, 4.0, -7.5, -0.4}, {1.7, -3.3, 0.0, 12.0}});
  // df 80 and 45 go through the Stirling branch of log Gamma((df+1)/2) - log Gamma(df/2).
  test::check_broadcasting("student_t_lpdf", f, ref, x,
                           {{{0.7, 3.0, 30.0, 80.0}, {1.5, 5.0, 45.0}},
                            {{0.0, 1.0, -1.0, 2.5}, {0.2, -0.4, 1.1}},
                            {{1.0, 0.5, 10.0, 2.0}, {0.7, 1.9, 3.3}}});
}

TEST_CASE("student_t_lpdf: far tails stay finite, with gradients") {
  // z^2 overflows beyond |z| ~ 1.3e154: a naive log(1 + z^2/df) gives -inf for the density.
  check_op("far tail", f, ref, {arr({{1e200, -1e200, 3e154, 1e120}}), arr({{3.0}}), arr({{0.0}}), arr({{1.0}})});
  check_op("far tail, small scale", f, ref, {arr({{1e100}}), arr({{0.5}}), arr({{-2.0}}), arr({{1e-100}})});
  check_op("near the centre", f, ref, {arr({{1e-9, -1e-12, 0.0}}), arr({{2.0}}), arr({{0.0}}), arr({{1.0}})});
}

TEST_CASE("student_t_lpdf: df = inf is the normal; non-finite and invalid inputs") {
  check_op("df = inf", f, ref, {arr({{0.3, -2.0}}), arr({{inf}}), arr({{0.5}}), arr({{2.0}})});
  check_op("non-finite x", f, ref, {arr({{inf, -inf, qnan}}), arr({{3.0}}), arr({{0.0}}), arr({{1.0}})},
           test::values_only());
  check_op("non-finite loc and scale", f, ref, {arr({{1.0}}), arr({{3.0}}), arr({{inf, -inf, qnan, 0.0}}),
                                                arr({{1.0, 1.0, 1.0, inf}})},
           test::values_only());
  check_op("invalid df and scale give NaN", f, ref,
           {arr({{1.0}}), arr({{0.0, -1.0, qnan, 2.0, 2.0, 2.0}}), arr({{0.0}}), arr({{1.0, 1.0, 1.0, 0.0, -1.0, qnan}})},
           test::values_only());
}

TEST_CASE("student_t_lpdf: d/d df at a large df approaches the normal-limit expansion") {
  // log t_df(z) = log N(z) + (z^4 - 2 z^2 - 1) / (4 df) + O(df^-2), so
  // d/d df = -(z^4 - 2 z^2 - 1) / (4 df^2) (mpmath: 3.80975e-13 at z = 1.3, df = 1e6). A plain
  // digamma difference would leave ~1e-15 of rounding here; the op's cancellation-free form must
  // match the expansion to its O(1/df) remainder.
  ad::Tape tape;
  double df = 1e6, g = 0.0;
  const ad::Var out = ad::student_t_lpdf(tape.constant(1.3), tape.leaf(&df, &g, 1, 1), tape.constant(0.0),
                                         tape.constant(1.0));
  tape.backward(out);
  const double z = 1.3;
  CHECK(g == doctest::Approx(-(z * z * z * z - 2 * z * z - 1) / (4 * df * df)).epsilon(1e-4));
  CHECK(out.value() == doctest::Approx(-0.5 * z * z - 0.5 * std::log(2 * M_PI)).epsilon(1e-6));
}

}  // namespace test_student_t_lpdf
