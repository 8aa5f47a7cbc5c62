// gamma_log_lpdf (the gamma_log likelihood's composed path) against a double formula of
// scipy.stats.gamma.logpdf(y, a=shape, scale=exp(eta)/shape) written here, with every broadcasting
// shape of y, eta and shape, tails in eta (y e^-eta overflowing), the edge of the support and the
// NaN a bad shape gives; and gamma_log_glm's edges (the fused path; its values and gradients are
// in test_glm_families.cpp).
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_gamma_log_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// scipy's parametrization: -log Gamma(a) - a log(scale) + (a - 1) log y - y / scale, scale = mu / a.
double gamma_mean(double y, double eta, double a) {
  if (!(a > 0) || std::isnan(eta) || std::isnan(y)) return qnan;
  if (!(y > 0)) return -inf;
  const double scale = std::exp(eta) / a;
  if (scale == 0.0) return -inf;
  return -std::lgamma(a) - a * std::log(scale) + (a - 1) * std::log(y) - y / scale;
}
const test::RefFn ref =
    test::broadcast_ref([](const std::vector<double>& a) { return gamma_mean(a[0], a[1], a[2]); });
const test::AdFn f = test::as_ad(ad::gamma_log_lpdf);
}  // namespace

TEST_CASE("gamma_log_lpdf: values and gradients under every broadcasting shape") {
  const Eigen::ArrayXXd y = arr({{0.3, 1.2, 2.5, 7.0}, {0.1, 4.0, 0.05, 0.4}, {1.7, 33.0, 0.02, 12.0}});
  test::check_broadcasting(
      "gamma_log_lpdf", f, ref, y,
      {{{-1.0, 0.0, 0.7, 2.5}, {0.2, -0.4, 1.1}}, {{3.0, 0.1, 1.0, 20.0}, {0.7, 1.9, 3.3}}});
}

TEST_CASE("gamma_log_lpdf: tails, the edge of the support, invalid shapes") {
  // Central differences step 1e-6 absolute below 1: y no smaller than 1e-3 for the gradients,
  // y = 1e-30 for the values.
  check_op("tails in y and eta", f, ref, {arr({{1e-3, 0.05, 800.0}}), arr({{-3.0, 5.0, 6.0}}), arr({{0.5}})});
  check_op("tiny y", f, ref, {arr({{1e-30, 1e-200}}), arr({{-3.0, 5.0}}), arr({{0.5, 3.0}})},
           test::values_only());
  check_op("y at and below 0, non-finite eta", f, ref,
           {arr({{0.0, -1.0, 1.0, 1.0}}), arr({{0.0, 0.0, -inf, qnan}}), arr({{2.0}})}, test::values_only());
  check_op("invalid shapes give NaN", f, ref,
           {arr({{1.0, 1.0, 1.0}}), arr({{0.0}}), arr({{0.0, -1.0, qnan}})}, test::values_only());
}

TEST_CASE("gamma_log_glm: eta = -inf or y e^-eta overflowing is -inf, never NaN; shape <= 0 is NaN") {
  // One row, x = 1, y = 2: eta = -800 makes y e^-eta overflow (log p -> -inf), eta = 800 makes it
  // 0 (log p = shape log shape - log Gamma(shape) + (shape - 1) log 2 - 800 shape, finite).
  const double x = 1.0, y = 2.0;
  ad::GlmRows rows;
  rows.y = &y;
  rows.rows = 1;
  ad::Tape tape(1 << 16);
  ad::Var a = tape.make(4, 1, true), be = tape.make(4, 1, true), shape = tape.make(4, 1, true);
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(a), 4) << -800.0, 800.0, -inf, 0.3;
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(be), 4).setZero();
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(shape), 4) << 1.5, 1.5, 1.5, -1.0;
  const ad::Var v = ad::gamma_log_glm<double>(&a, be, shape, &x, rows);
  CHECK(v.val()(0, 0) == -inf);
  CHECK(
      v.val()(1, 0) ==
      doctest::Approx(1.5 * std::log(1.5) - std::lgamma(1.5) + 0.5 * std::log(2.0) - 1200.0).epsilon(1e-14));
  CHECK(v.val()(2, 0) == -inf);
  CHECK(std::isnan(v.val()(3, 0)));
}

}  // namespace test_gamma_log_lpdf
