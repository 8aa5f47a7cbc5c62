// The densities of group-level effects and their correlations, through the generic op checker:
//   grouped_normal_lpdf against a scalar loop of normal log densities;
//   grouped_multi_normal_lpdf against Eigen's LLT of the covariance diag(sd) L L^T diag(sd);
//   lkj_corr_cholesky_lpdf against the Beta law of the canonical partial correlations (the
//   z_ij of the Cholesky construction are independent Beta(b_j, b_j) on (-1, 1) with
//   b_j = eta + (K - 2 - j) / 2, Lewandowski et al. 2009), which for K = 2 is the Beta density of
//   (r + 1) / 2 itself; its normalizing constant against the volume pi^2 / 2 of the 3 x 3
//   correlation matrices; and the unconstrained density exp(lkj(L(u)) + log J(u)) integrated
//   over R^3 by quadrature, which must give 1.
#include <Eigen/Cholesky>
#include <cmath>
#include <limits>
#include <random>

#include "inference/ad/ad.hpp"
#include "inference/ad/math/cholesky_corr.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_group_priors {

using namespace bvi;
using bvi::test::check_op;
using bvi::test::qnan;

namespace {

const double kLog2Pi = std::log(2 * M_PI);

Eigen::ArrayXXd normal_array(Eigen::Index r, Eigen::Index c, unsigned seed, double sd) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, sd);
  Eigen::ArrayXXd a(r, c);
  for (Eigen::Index i = 0; i < a.size(); ++i) a(i) = normal(rng);
  return a;
}

// Free entries of valid factors: each row of L scaled to norm `norm` < 1.
Eigen::ArrayXXd random_factors(Eigen::Index S, Eigen::Index K, unsigned seed, double norm = 0.8) {
  Eigen::ArrayXXd w = normal_array(S, K * (K - 1) / 2, seed, 1.0);
  for (Eigen::Index s = 0; s < S; ++s)
    for (Eigen::Index i = 1; i < K; ++i) {
      double ss = 0;
      for (Eigen::Index j = 0; j < i; ++j) ss += w(s, i * (i - 1) / 2 + j) * w(s, i * (i - 1) / 2 + j);
      const double scale = norm * (0.5 + 0.5 * double(i % 2)) / std::sqrt(ss);
      for (Eigen::Index j = 0; j < i; ++j) w(s, i * (i - 1) / 2 + j) *= scale;
    }
  return w;
}

// L from its free entries (row s), written out again here.
Eigen::MatrixXd factor(const Eigen::ArrayXXd& w, Eigen::Index s, Eigen::Index K) {
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(K, K);
  L(0, 0) = 1;
  Eigen::Index k = 0;
  for (Eigen::Index i = 1; i < K; ++i) {
    for (Eigen::Index j = 0; j < i; ++j) L(i, j) = w(s, k++);
    L(i, i) = std::sqrt(1 - L.row(i).head(i).squaredNorm());
  }
  return L;
}

double log_beta_fn(double a, double b) {
  return std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
}

}  // namespace

TEST_CASE("grouped_normal_lpdf") {
  auto f = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::grouped_normal_lpdf(v[0], v[1]); };
  auto ref = [](const test::Arrays& x) {
    const Eigen::Index S = x[0].rows(), K = x[1].cols();
    if (x[1].rows() != S || x[0].cols() % K != 0) throw std::invalid_argument("shape");
    Eigen::ArrayXXd out = Eigen::ArrayXXd::Zero(S, 1);
    for (Eigen::Index s = 0; s < S; ++s)
      for (Eigen::Index c = 0; c < x[0].cols(); ++c) {
        const double sd = x[1](s, c % K), z = x[0](s, c) / sd;
        out(s, 0) += sd > 0 ? -0.5 * z * z - std::log(sd) - 0.5 * kLog2Pi : qnan;
      }
    return out;
  };
  for (Eigen::Index S : {1, 4})
    for (Eigen::Index K : {1, 2, 3})
      for (Eigen::Index G : {1, 5}) {
        const test::Arrays in = {normal_array(S, G * K, 3, 1.2), 0.3 + normal_array(S, K, 4, 1.0).abs()};
        check_op("S " + std::to_string(S) + " K " + std::to_string(K) + " G " + std::to_string(G), f, ref,
                 in);
      }
  check_op("a zero and a negative sd", f, ref,
           {normal_array(2, 4, 1, 1.0), test::arr({{0.0, 1.0}, {1.0, -2.0}})}, {1e-13, 1e-6, 1e-6, false});
  check_op("5 columns for K = 2 throws", f, ref,
           {normal_array(2, 5, 1, 1.0), normal_array(2, 2, 1, 1.0).abs()});
}

TEST_CASE("grouped_multi_normal_lpdf against the covariance's Cholesky factor from Eigen") {
  auto f = [](ad::Tape&, const std::vector<ad::Var>& v) {
    return ad::grouped_multi_normal_lpdf(v[0], v[1], v[2]);
  };
  auto ref = [](const test::Arrays& x) {
    const Eigen::Index S = x[0].rows(), K = x[1].cols(), G = x[0].cols() / K;
    if (x[0].cols() % K != 0 || x[2].cols() != K * (K - 1) / 2 || K < 2) throw std::invalid_argument("shape");
    Eigen::ArrayXXd out(S, 1);
    for (Eigen::Index s = 0; s < S; ++s) {
      const Eigen::MatrixXd L = factor(x[2], s, K);
      if (!L.allFinite() || (x[1].row(s) <= 0).any()) {
        out(s, 0) = qnan;
        continue;
      }
      const Eigen::VectorXd sd = x[1].row(s).transpose();
      const Eigen::MatrixXd cov = sd.asDiagonal() * L * L.transpose() * sd.asDiagonal();
      const Eigen::LLT<Eigen::MatrixXd> llt(cov);
      const double log_det = 2 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
      double lp = 0;
      for (Eigen::Index g = 0; g < G; ++g) {
        const Eigen::VectorXd r = x[0].row(s).segment(g * K, K).transpose();
        lp += -0.5 * double(K) * kLog2Pi - 0.5 * log_det - 0.5 * r.dot(llt.solve(r));
      }
      out(s, 0) = lp;
    }
    return out;
  };
  for (Eigen::Index K : {2, 3, 4})
    for (Eigen::Index S : {1, 3})
      for (Eigen::Index G : {1, 6}) {
        const test::Arrays in = {normal_array(S, G * K, 5, 1.5), 0.4 + normal_array(S, K, 6, 1.0).abs(),
                                 random_factors(S, K, 7)};
        check_op("K " + std::to_string(K) + " S " + std::to_string(S) + " G " + std::to_string(G), f, ref, in,
                 {1e-11, 1e-6, 1e-6, true});
      }
  // A row of L longer than 1 and a non-positive sd: NaN.
  test::Arrays bad = {normal_array(2, 4, 1, 1.0), test::arr({{1.0, 1.0}, {1.0, -1.0}}),
                      test::arr({{1.5}, {0.2}})};
  check_op("invalid L or sd", f, ref, bad, {1e-13, 1e-6, 1e-6, false});
  check_op("K = 1 throws", f, ref,
           {normal_array(2, 3, 1, 1.0), normal_array(2, 1, 2, 1.0).abs(), Eigen::ArrayXXd(2, 0)});
}

TEST_CASE("lkj_corr_cholesky_lpdf: K = 2 is the Beta density of (r + 1) / 2") {
  for (double eta : {0.5, 1.0, 2.0, 7.5}) {
    auto f = [eta](ad::Tape&, const std::vector<ad::Var>& v) {
      return ad::lkj_corr_cholesky_lpdf(v[0], eta, 2);
    };
    auto ref = [eta](const test::Arrays& x) {
      Eigen::ArrayXXd out(x[0].rows(), 1);
      for (Eigen::Index s = 0; s < x[0].rows(); ++s) {
        const double t = (x[0](s, 0) + 1) / 2;
        // Beta(eta, eta) density of t, times |dt/dr| = 1/2.
        out(s, 0) = (eta - 1) * (std::log(t) + std::log1p(-t)) - log_beta_fn(eta, eta) - std::log(2.0);
      }
      return out;
    };
    check_op("eta " + std::to_string(eta), f, ref, {test::arr({{0.3}, {-0.85}, {0.0}, {0.99}})},
             {1e-12, 1e-6, 1e-7, true});
  }
}

TEST_CASE("lkj_corr_cholesky_lpdf: K = 3, 4 against the Beta law of the partial correlations") {
  for (Eigen::Index K : {3, 4})
    for (double eta : {0.7, 1.0, 2.5}) {
      auto f = [eta, K](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::lkj_corr_cholesky_lpdf(v[0], eta, K);
      };
      auto ref = [eta, K](const test::Arrays& x) {
        Eigen::ArrayXXd out(x[0].rows(), 1);
        for (Eigen::Index s = 0; s < x[0].rows(); ++s) {
          const Eigen::MatrixXd L = factor(x[0], s, K);
          double lp = 0;
          for (Eigen::Index i = 1; i < K; ++i) {
            double rest = 1;  // 1 - sum_{m<j} L_im^2
            for (Eigen::Index j = 0; j < i; ++j) {
              const double z = L(i, j) / std::sqrt(rest);
              const double b = eta + double(K - 2 - j) / 2;
              const double t = (z + 1) / 2;
              lp += (b - 1) * (std::log(t) + std::log1p(-t)) - log_beta_fn(b, b) - std::log(2.0);
              // p(L) = p(z) |dz/dL|, dz_ij/dL_ij = 1 / sqrt(rest) (triangular)
              lp -= 0.5 * std::log(rest);
              rest -= L(i, j) * L(i, j);
            }
          }
          out(s, 0) = lp;
        }
        return out;
      };
      check_op("K " + std::to_string(K) + " eta " + std::to_string(eta), f, ref,
               {random_factors(3, K, 11, 0.7)}, {1e-11, 1e-6, 1e-7, true});
    }
  CHECK(ad::lkj_log_normalizer(1.0, 3) == doctest::Approx(std::log(M_PI * M_PI / 2)).epsilon(1e-14));
  CHECK(ad::lkj_log_normalizer(1.0, 2) == doctest::Approx(std::log(2.0)).epsilon(1e-14));
}

TEST_CASE("lkj_corr_cholesky_lpdf throws for eta <= 0 and a bad width") {
  ad::Tape tape;
  const Eigen::ArrayXXd w = random_factors(2, 3, 1);
  const ad::Var v = tape.constant(w.data(), 2, 3);
  CHECK_THROWS_AS(ad::lkj_corr_cholesky_lpdf(v, 0.0, 3), std::invalid_argument);
  CHECK_THROWS_AS(ad::lkj_corr_cholesky_lpdf(v, 1.0, 4), std::invalid_argument);
  CHECK_THROWS_AS(ad::lkj_corr_cholesky_lpdf(v.cols(0, 1), 1.0, 1), std::invalid_argument);
}

TEST_CASE("the LKJ density on the unconstrained scale integrates to 1 (K = 3)") {
  // The trapezoid rule in u: the integrand is analytic and decays like e^(-2 b |u|), so a step of
  // 0.2 on [-10, 10] is exact to ~1e-9 (the error of the rule falls exponentially with 1/h).
  const int n = 101;
  const double h = 0.2;
  const std::vector<ad::ColumnTransform> transforms = ad::cholesky_corr_block(3);
  Eigen::MatrixXd u(n * n * n, 3);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      for (int c = 0; c < n; ++c) u.row((a * n + b) * n + c) << -10 + h * a, -10 + h * b, -10 + h * c;
  for (double eta : {0.8, 1.0, 1.5, 4.0}) {
    ad::Tape tape;
    const ad::Constrained con = ad::constrain(tape.constant(u.data(), u.rows(), 3), transforms);
    const ad::Var lp = ad::lkj_corr_cholesky_lpdf(con.x, eta, 3);
    double total = 0;
    for (Eigen::Index r = 0; r < u.rows(); ++r)
      total += std::exp(lp.val()(r, 0) + con.log_jacobian.val()(r, 0));
    CHECK(total * h * h * h == doctest::Approx(1.0).epsilon(1e-7));
  }
}

}  // namespace test_group_priors
