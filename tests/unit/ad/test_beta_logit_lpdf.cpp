// beta_logit_lpdf (the beta_logit likelihood's composed path) against a double formula of
// scipy.stats.beta.logpdf(y, mu phi, (1 - mu) phi), mu = expit(eta), written here, with every
// broadcasting shape of y, eta and phi, responses near 0 and 1, large |eta|, the edges of the
// support and the NaN a bad precision gives; and beta_logit_glm's edges (the fused path; its
// values and gradients are in test_glm_families.cpp).
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/lpdf_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_beta_logit_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

double beta_mean(double y, double eta, double phi) {
  if (!(phi > 0) || std::isnan(eta) || std::isnan(y)) return qnan;
  if (!(y > 0 && y < 1)) return -inf;
  const double mu = 1.0 / (1.0 + std::exp(-eta)), a = mu * phi, b = phi / (1.0 + std::exp(eta));
  return std::lgamma(phi) - std::lgamma(a) - std::lgamma(b) + (a - 1) * std::log(y) +
         (b - 1) * std::log1p(-y);
}
const test::RefFn ref =
    test::broadcast_ref([](const std::vector<double>& a) { return beta_mean(a[0], a[1], a[2]); });
const test::AdFn f = test::as_ad(ad::beta_logit_lpdf);
}  // namespace

TEST_CASE("beta_logit_lpdf: values and gradients under every broadcasting shape") {
  const Eigen::ArrayXXd y = arr({{0.3, 0.52, 0.25, 0.7}, {0.1, 0.4, 0.05, 0.94}, {0.17, 0.33, 0.62, 0.8}});
  test::check_broadcasting(
      "beta_logit_lpdf", f, ref, y,
      {{{-1.0, 0.0, 0.7, 2.5}, {0.2, -0.4, 1.1}}, {{3.0, 0.5, 1.0, 20.0}, {0.7, 1.9, 30.0}}});
}

TEST_CASE("beta_logit_lpdf: tails, the edges of the support, invalid precisions") {
  // Central differences step 1e-6 absolute below 1: y within 1e-3 of the edges at most for the
  // gradients; nearer for the values.
  check_op("tails in eta and y", f, ref, {arr({{1e-3, 0.999, 0.5}}), arr({{-8.0, 9.0, 30.0}}), arr({{2.5}})});
  check_op("y near the edges", f, ref, {arr({{1e-12, 1.0 - 1e-12}}), arr({{-3.0, 3.0}}), arr({{4.0}})},
           test::values_only());
  check_op("y at and beyond the edges, non-finite eta", f, ref,
           {arr({{0.0, 1.0, -0.5, 1.5, 0.5}}), arr({{0.0, 0.0, 0.0, 0.0, qnan}}), arr({{2.0}})},
           test::values_only());
  check_op("invalid precisions give NaN", f, ref,
           {arr({{0.5, 0.5, 0.5}}), arr({{0.0}}), arr({{0.0, -1.0, qnan}})}, test::values_only());
}

TEST_CASE(
    "beta_logit_glm: eta so large that mu or 1 - mu underflows gives -inf, never NaN; phi <= 0 is NaN") {
  const double x = 1.0, y = 0.4;
  ad::GlmRows rows;
  rows.y = &y;
  rows.rows = 1;
  ad::Tape tape(1 << 16);
  ad::Var a = tape.make(4, 1, true), be = tape.make(4, 1, true), phi = tape.make(4, 1, true);
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(a), 4) << -800.0, 800.0, 0.3, 0.3;
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(be), 4).setZero();
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(phi), 4) << 2.0, 2.0, 2.0, -1.0;
  const ad::Var v = ad::beta_logit_glm<double>(&a, be, phi, &x, rows);
  CHECK(v.val()(0, 0) == -inf);
  CHECK(v.val()(1, 0) == -inf);
  CHECK(v.val()(2, 0) == doctest::Approx(beta_mean(0.4, 0.3, 2.0)).epsilon(1e-14));
  CHECK(std::isnan(v.val()(3, 0)));
}

}  // namespace test_beta_logit_lpdf
