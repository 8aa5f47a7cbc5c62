// categorical_logit_glm (the multinomial logit's fused op): values against the softmax written out
// here in long double, for every choice of the reference category, with and without intercepts and
// row weights, double and float features; its gradient against central differences (check_op);
// and linear predictors far apart (|eta| ~ 1000), where the naive softmax overflows.
#include <cmath>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_categorical_logit_glm {

using namespace bvi;
using bvi::test::arr;

namespace {

const double kY[] = {1, 3, 2, 2, 3, 1};
const double kX[] = {0.5, -1.0, 1.5, 0.2, -0.3, 0.8, 2.0, -1.1, 0.0, 0.4, -1.7, 0.9};
const float kXf[] = {0.5f, -1.0f, 1.5f, 0.2f, -0.3f, 0.8f, 2.0f, -1.1f, 0.0f, 0.4f, -1.7f, 0.9f};
const double kW[] = {1.0, 0.0, 2.5, 1.0, 3.0, 0.5};

// sum_n w_n log softmax_{y_n}(eta_n) for K = 3 categories, D = 2 features: inputs alpha (S x 2, or
// absent) and beta (S x 4, feature-major: column j 2 + c), c indexing the non-reference categories.
Eigen::ArrayXXd reference_sum(const test::Arrays& v, bool with_alpha, int ref, const double* w) {
  const Eigen::ArrayXXd& beta = v[with_alpha ? 1 : 0];
  Eigen::ArrayXXd out = Eigen::ArrayXXd::Zero(beta.rows(), 1);
  for (Eigen::Index s = 0; s < beta.rows(); ++s)
    for (int n = 0; n < 6; ++n) {
      long double eta[3];
      int c = 0;
      for (int k = 1; k <= 3; ++k) {
        if (k == ref) {
          eta[k - 1] = 0;
          continue;
        }
        eta[k - 1] = (with_alpha ? v[0](s, c) : 0.0) + kX[2 * n] * beta(s, c) + kX[2 * n + 1] * beta(s, 2 + c);
        ++c;
      }
      const long double den = std::exp(eta[0]) + std::exp(eta[1]) + std::exp(eta[2]);
      const int y = static_cast<int>(kY[n]);
      out(s, 0) += (w ? w[n] : 1.0) * static_cast<double>(std::log(std::exp(eta[y - 1]) / den));
    }
  return out;
}

}  // namespace

TEST_CASE("categorical_logit_glm: values and gradients against the softmax, every reference category") {
  const Eigen::ArrayXXd alpha = arr({{0.2, -0.7}, {-0.3, 1.1}});
  const Eigen::ArrayXXd beta = arr({{0.7, -0.4, 0.3, 1.2}, {-1.1, 0.6, -0.2, 0.05}});
  for (int ref = 1; ref <= 3; ++ref)
    for (int weighted = 0; weighted < 2; ++weighted) {
      CAPTURE(ref);
      CAPTURE(weighted);
      ad::GlmRows rows;
      rows.y = kY;
      rows.rows = 6;
      rows.weight = weighted ? kW : nullptr;
      const double* w = rows.weight;
      auto r = [ref, w](const test::Arrays& v) { return reference_sum(v, true, ref, w); };
      auto f = [ref, &rows](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::categorical_logit_glm<double>(&v[0], v[1], kX, rows, 3, ref);
      };
      test::check_op("categorical_logit_glm", f, r, {alpha, beta}, {1e-12, 1e-6, 1e-6, true});
      auto ff = [ref, &rows](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::categorical_logit_glm<float>(&v[0], v[1], kXf, rows, 3, ref);
      };
      test::check_op("categorical_logit_glm float", ff, r, {alpha, beta}, {1e-5, 1e-4, 1e-6, true});
      // No intercepts.
      auto r0 = [ref, w](const test::Arrays& v) { return reference_sum(v, false, ref, w); };
      auto f0 = [ref, &rows](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::categorical_logit_glm<double>(nullptr, v[0], kX, rows, 3, ref);
      };
      test::check_op("categorical_logit_glm without alpha", f0, r0, {beta}, {1e-12, 1e-6, 1e-6, true});
    }
}

TEST_CASE("categorical_logit_glm: linear predictors 1000 apart stay finite and exact") {
  // One row, no features: eta = alpha. K = 3, reference 1.
  const double y2[] = {2}, y1[] = {1};
  ad::GlmRows rows;
  rows.rows = 1;
  ad::Tape tape;
  const Eigen::ArrayXXd a = arr({{1000.0, -1000.0}, {-1000.0, -999.0}});
  Eigen::ArrayXXd a_adj = Eigen::ArrayXXd::Zero(2, 2);
  const ad::Var alpha = tape.leaf(a.data(), a_adj.data(), 2, 2);
  const ad::Var beta = tape.constant(nullptr, 2, 0);
  rows.y = y2;
  const ad::Var l2 = ad::categorical_logit_glm<double>(&alpha, beta, kX, rows, 3, 1);
  // Draw 0: eta = (0, 1000, -1000): log softmax_2 = -log(1 + e^-1000 + e^-2000) = -0 (to rounding).
  CHECK(l2.val()(0, 0) == doctest::Approx(0.0));
  // Draw 1: eta = (0, -1000, -999): log softmax_2 = -1000 - log(1 + e^-1000 + e^-999) = -1000.
  CHECK(l2.val()(1, 0) == doctest::Approx(-1000.0).epsilon(1e-15));
  rows.y = y1;
  const ad::Var l1 = ad::categorical_logit_glm<double>(&alpha, beta, kX, rows, 3, 1);
  CHECK(l1.val()(0, 0) == doctest::Approx(-1000.0).epsilon(1e-15));
  CHECK(l1.val()(1, 0) == doctest::Approx(0.0));
  // The gradient of l1 alone (the tape runs every closure: l2's output adjoint is 0): dl/dalpha_k
  // = 1[y = k] - softmax_k, with y = 1 the reference.
  tape.backward(l1);
  CHECK(a_adj(0, 0) == doctest::Approx(-1.0));
  CHECK(a_adj(0, 1) == doctest::Approx(0.0));
  CHECK(std::isfinite(a_adj(1, 0)));
  CHECK(a_adj(1, 0) == doctest::Approx(0.0));
}

TEST_CASE("categorical_logit_glm: bad arguments") {
  ad::Tape tape;
  ad::GlmRows rows;
  const double y4[] = {4};
  rows.y = y4;
  rows.rows = 1;
  const Eigen::ArrayXXd zeros = Eigen::ArrayXXd::Zero(2, 4);
  const ad::Var beta = tape.constant(zeros.data(), 2, 4);
  CHECK_THROWS_AS(ad::categorical_logit_glm<double>(nullptr, beta, kX, rows, 3, 1), std::invalid_argument);
  CHECK_THROWS_AS(ad::categorical_logit_glm<double>(nullptr, beta, kX, rows, 3, 4), std::invalid_argument);
  const ad::Var odd = tape.constant(zeros.data(), 2, 3);
  CHECK_THROWS_AS(ad::categorical_logit_glm<double>(nullptr, odd, kX, rows, 3, 1), std::invalid_argument);
}

}  // namespace test_categorical_logit_glm
