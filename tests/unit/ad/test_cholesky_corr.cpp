// The cholesky_corr block transform (Stan's): its values against the product form of the
// canonical partial correlations, L_ij = z_ij prod_{m<j} sqrt(1 - z_im^2), z = tanh(u); its
// log-Jacobian against log |det| of the Jacobian of u -> L's free entries by central differences,
// and against the closed form sum log(1 - z^2) + sum_{i, 1<=j<i} sum_{m<j} log(1 - z_im^2) / 2;
// gradients of x and log J against central differences, inside a row of other transforms; every
// L it makes is a valid factor (rows of norm < 1) even far out; a block cut short throws.
#include <Eigen/LU>
#include <cmath>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_cholesky_corr {

using namespace bvi;
using bvi::test::arr;

namespace {

// z -> free entries of L by the product form.
Eigen::VectorXd ref_factor(const Eigen::VectorXd& u, Eigen::Index K) {
  Eigen::VectorXd out(u.size());
  Eigen::Index k = 0;
  for (Eigen::Index i = 1; i < K; ++i) {
    double prod = 1;
    for (Eigen::Index j = 0; j < i; ++j) {
      const double z = std::tanh(u[k]);
      out[k++] = z * std::sqrt(prod);
      prod *= 1 - z * z;
    }
  }
  return out;
}

double ref_log_jacobian(const Eigen::VectorXd& u, Eigen::Index K) {
  double lj = 0;
  Eigen::Index k = 0;
  for (Eigen::Index i = 1; i < K; ++i) {
    double log_prod = 0;
    for (Eigen::Index j = 0; j < i; ++j) {
      const double z = std::tanh(u[k++]);
      lj += std::log(1 - z * z);
      if (j > 0) lj += 0.5 * log_prod;
      log_prod += std::log(1 - z * z);
    }
  }
  return lj;
}

}  // namespace

TEST_CASE("cholesky_corr: values and log-Jacobian") {
  for (Eigen::Index K : {2, 3, 4, 5}) {
    const Eigen::Index n = K * (K - 1) / 2;
    const auto transforms = ad::cholesky_corr_block(K);
    Eigen::MatrixXd u = Eigen::MatrixXd::Random(3, n) * 1.5;
    ad::Tape tape;
    const ad::Constrained c = ad::constrain(tape.constant(u.data(), 3, n), transforms);
    Eigen::MatrixXd values(3, n);
    ad::constrain_values(u, transforms, values);
    for (Eigen::Index s = 0; s < 3; ++s) {
      const Eigen::VectorXd ref = ref_factor(u.row(s).transpose(), K);
      for (Eigen::Index k = 0; k < n; ++k) {
        CHECK(c.x.val()(s, k) == doctest::Approx(ref[k]).epsilon(1e-14));
        CHECK(values(s, k) == c.x.val()(s, k));
      }
      CHECK(c.log_jacobian.val()(s, 0) ==
            doctest::Approx(ref_log_jacobian(u.row(s).transpose(), K)).epsilon(1e-13));
      // log |det dL/du| by central differences.
      Eigen::MatrixXd J(n, n);
      for (Eigen::Index k = 0; k < n; ++k) {
        Eigen::VectorXd up = u.row(s).transpose(), dn = up;
        up[k] += 1e-6;
        dn[k] -= 1e-6;
        J.col(k) = (ref_factor(up, K) - ref_factor(dn, K)) / 2e-6;
      }
      CHECK(c.log_jacobian.val()(s, 0) == doctest::Approx(std::log(std::abs(J.determinant()))).epsilon(1e-6));
    }
  }
}

TEST_CASE("cholesky_corr: gradients inside a row of other transforms") {
  std::vector<ad::ColumnTransform> transforms = {{ad::Bound::lower, 0, 0}};
  for (const auto& t : ad::cholesky_corr_block(3)) transforms.push_back(t);
  transforms.push_back({ad::Bound::interval, -1, 2});
  for (const auto& t : ad::cholesky_corr_block(2)) transforms.push_back(t);
  auto f = [transforms](ad::Tape& tape, const std::vector<ad::Var>& v) {
    const ad::Constrained c = ad::constrain(v[0], transforms);
    const Eigen::ArrayXXd w = Eigen::ArrayXd::LinSpaced(6, -1.5, 2.0).transpose();
    return ad::add(ad::row_sums(ad::multiply(c.x, tape.constant(w))),
                   ad::multiply(c.log_jacobian, tape.constant(3.0)));
  };
  auto ref = [](const test::Arrays& x) {
    const Eigen::ArrayXXd w = Eigen::ArrayXd::LinSpaced(6, -1.5, 2.0).transpose();
    Eigen::ArrayXXd out(x[0].rows(), 1);
    for (Eigen::Index s = 0; s < x[0].rows(); ++s) {
      const Eigen::VectorXd u = x[0].row(s).transpose();
      const Eigen::VectorXd l3 = ref_factor(u.segment(1, 3), 3), l2 = ref_factor(u.segment(5, 1), 2);
      const double sig = 1 / (1 + std::exp(-u[4]));
      double v = w(0, 0) * std::exp(u[0]) + w(0, 4) * (-1 + 3 * sig);
      for (int k = 0; k < 3; ++k) v += w(0, 1 + k) * l3[k];
      v += w(0, 5) * l2[0];
      const double lj = u[0] + ref_log_jacobian(u.segment(1, 3), 3) + std::log(3 * sig * (1 - sig)) +
                        ref_log_jacobian(u.segment(5, 1), 2);
      out(s, 0) = v + 3 * lj;
    }
    return out;
  };
  test::check_op("lower, corr 3, interval, corr 2", f, ref,
                 {arr({{0.3, -1.2, 2.5, 0.1, -0.7, 1.9}, {1.1, 0.4, -3.0, -2.2, 3.5, -0.2}})},
                 {1e-12, 1e-6, 1e-6, true});
}

TEST_CASE("cholesky_corr: valid factors far out, and a block cut short throws") {
  const auto transforms = ad::cholesky_corr_block(4);
  Eigen::MatrixXd u = Eigen::MatrixXd::Constant(1, 6, 30.0), x(1, 6);
  ad::constrain_values(u, transforms, x);
  for (Eigen::Index i = 1; i < 4; ++i) {
    double ss = 0;
    for (Eigen::Index j = 0; j < i; ++j) ss += x(0, i * (i - 1) / 2 + j) * x(0, i * (i - 1) / 2 + j);
    CHECK(ss <= 1.0);
  }
  ad::Tape tape;
  CHECK_FALSE(std::isnan(ad::constrain(tape.constant(u.data(), 1, 6), transforms).log_jacobian.val()(0, 0)));
  std::vector<ad::ColumnTransform> cut(transforms.begin(), transforms.begin() + 4);
  Eigen::MatrixXd u4 = Eigen::MatrixXd::Zero(1, 4), x4(1, 4);
  CHECK_THROWS_AS(ad::constrain_values(u4, cut, x4), std::invalid_argument);
  std::vector<ad::ColumnTransform> late(transforms.begin() + 1, transforms.end());
  Eigen::MatrixXd u5 = Eigen::MatrixXd::Zero(1, 5), x5(1, 5);
  CHECK_THROWS_AS(ad::constrain_values(u5, late, x5), std::invalid_argument);
}

}  // namespace test_cholesky_corr
