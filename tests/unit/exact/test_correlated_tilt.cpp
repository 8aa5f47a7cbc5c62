// Three or more correlated effects (models/correlated_tilt.hpp): r' W r as a sum of Gaussian
// tilts c e^{a . v} r_p r_q, built for any K. Checked against references written here: the terms
// against W from an independent canonical-partial-correlation factor and a dense inverse; the
// expectation for K = 3 under a random dense q against a tensor Gauss–Hermite integral over the
// six global coordinates with the effects' conditional Gaussian expectation in closed form (the
// log determinant, the LKJ density and the transform's Jacobian written from L, not from log
// cosh); the gradient against central differences (fullrank and meanfield); K = 2 equal to the
// written-out pair (expected_correlated_pair.cpp); and at model level (intercept and two slopes)
// the prior exact, the sparse family's value and gradient fullrank's at the same q, and the sparse
// optimum fullrank's.
#include <doctest/doctest.h>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>
#include <random>

#include "exact_fixtures.hpp"
#include "inference/ad/ops/lkj_corr_cholesky_lpdf.hpp"
#include "inference/quadrature/gauss_hermite.hpp"
#include "models/correlated_tilt.hpp"
#include "multilevel_setup.hpp"
#include "sparse_q.hpp"
#include "support/sanitized.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_correlated_tilt {

using namespace bvi;
using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using models::CorrelatedTilt;

namespace {

// L from canonical partial correlations tanh(y), row by row (y_10, y_20, y_21, y_30, ...).
MatrixXd cpc_factor(const VectorXd& y, Index K) {
  MatrixXd L = MatrixXd::Zero(K, K);
  L(0, 0) = 1.0;
  Index at = 0;
  for (Index i = 1; i < K; ++i) {
    double rest = 1.0;
    for (Index j = 0; j < i; ++j) {
      L(i, j) = std::tanh(y[at++]) * std::sqrt(rest);
      rest -= L(i, j) * L(i, j);
    }
    L(i, i) = std::sqrt(rest);
  }
  return L;
}

// log |dL/dy|: triangular in this order, dL_ij/dy_ij = (1 - z^2) sqrt(1 - sum_{m<j} L_im^2).
double cpc_log_jacobian(const VectorXd& y, Index K) {
  const MatrixXd L = cpc_factor(y, K);
  double lj = 0.0;
  Index at = 0;
  for (Index i = 1; i < K; ++i) {
    double rest = 1.0;
    for (Index j = 0; j < i; ++j) {
      const double z = std::tanh(y[at++]);
      lj += std::log((1.0 - z * z) * std::sqrt(rest));
      rest -= L(i, j) * L(i, j);
    }
  }
  return lj;
}

// Stan's lkj_corr_cholesky: sum_{i>=2} (K - i + 2 eta - 2) log L_ii (1-based i).
double lkj_log_density(const MatrixXd& L, double eta) {
  const Index K = L.rows();
  double lp = -ad::lkj_log_normalizer(eta, K);
  for (Index i = 1; i < K; ++i) lp += (static_cast<double>(K - i - 1) + 2.0 * eta - 2.0) * std::log(L(i, i));
  return lp;
}

// Columns of a standalone factor: J groups of K effects, then K log sds, then the y's.
CorrelatedTilt::Columns layout(Index K, Index J) { return {0, J, J * K, J * K + K}; }

struct Result {
  double value;
  VectorXd d_mean;
  MatrixXd G;  // dE/dSigma, ordered pairs
};

Result evaluate(const CorrelatedTilt* tilt, const CorrelatedTilt::Columns& col, double eta, const vi::GaussianQ& q) {
  Result r{0.0, VectorXd::Zero(q.dim()), MatrixXd::Zero(q.dim(), q.dim())};
  auto add = [&r](Index i, Index k, double g) { r.G(i, k) += g; };
  r.value = tilt ? tilt->value(col, eta, q, &r.d_mean, add) : models::correlated_pair_value(col, eta, q, &r.d_mean, add);
  return r;
}

double value_of(const CorrelatedTilt& tilt, const CorrelatedTilt::Columns& col, double eta, const vi::GaussianQ& q) {
  return tilt.value(col, eta, q, nullptr, {});
}

MatrixXd covariance(const vi::GaussianQ& q) { return q.chol * q.chol.transpose(); }

void check_derivative(double fd, double analytic, double scale) {
  CHECK(std::abs(fd - analytic) <= 2e-6 * (std::abs(analytic) + scale));
}

}  // namespace

TEST_CASE("correlated tilt: the terms are W = (D L L' D)^-1 for K = 2, 3, 4") {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  const Index expected_terms[] = {8, 77, 884};
  for (Index K = 2; K <= 4; ++K) {
    INFO("K = " << K);
    const CorrelatedTilt tilt(K);
    CHECK(tilt.terms() == expected_terms[K - 2]);
    const Index m = K * (K - 1) / 2;
    for (int rep = 0; rep < 3; ++rep) {
      VectorXd v(K + m);
      for (Index i = 0; i < K + m; ++i) v[i] = 0.7 * normal(rng);
      const MatrixXd L = cpc_factor(v.tail(m), K);
      const VectorXd sd = v.head(K).array().exp();
      const MatrixXd Sigma = sd.asDiagonal() * L * L.transpose() * sd.asDiagonal();
      const MatrixXd W = Sigma.inverse();
      MatrixXd sum = MatrixXd::Zero(K, K);
      for (Index t = 0; t < tilt.terms(); ++t) {
        CHECK(tilt.p(t) <= tilt.q(t));
        sum(tilt.p(t), tilt.q(t)) += tilt.coefficient(t) * std::exp(tilt.exponent(t).dot(v));
      }
      for (Index p = 0; p < K; ++p)
        for (Index q = p; q < K; ++q) CHECK(sum(p, q) == doctest::Approx((p == q ? 1.0 : 2.0) * W(p, q)).epsilon(1e-11));
    }
  }
}

TEST_CASE("correlated tilt: K = 3 expectation against a tensor Gauss-Hermite integral") {
  const Index K = 3, J = 3, m = 3, D = K + m, P = J * K + D;
  const double eta = 1.7;
  const CorrelatedTilt tilt(K);
  const CorrelatedTilt::Columns col = layout(K, J);
  // 8 points a dimension (8^6 nodes) integrate the tilts e^{a . v} (|a| <= 4, sds about 0.2)
  // well within the 1e-9 checked (10 points agree); under the sanitizers one q and 6 points.
  const int points = test::kSanitized ? 6 : 8;
  const double tolerance = test::kSanitized ? 1e-6 : 1e-9;
  for (unsigned seed : {3u, 8u}) {
    if (test::kSanitized && seed != 3u) continue;
    INFO("seed " << seed);
    const vi::GaussianQ q = test::random_q(P, true, seed, 0.2);
    const MatrixXd S = covariance(q);
    const Index v0 = J * K;
    const MatrixXd Svv = S.block(v0, v0, D, D);
    const MatrixXd C = Svv.llt().matrixL();
    // Per group: mu_g = m_g + B_g z (B_g = S_gv C^-T), conditional covariance S_gg - B_g B_g'.
    std::vector<MatrixXd> B, Cg;
    for (Index g = 0; g < J; ++g) {
      const MatrixXd Sgv = S.block(g * K, v0, K, D);
      B.push_back(C.triangularView<Eigen::Lower>().solve(Sgv.transpose()).transpose());
      Cg.push_back(S.block(g * K, g * K, K, K) - B.back() * B.back().transpose());
    }
    const quadrature::GaussHermiteRule& gh = quadrature::gauss_hermite(points);
    const int n = gh.size();
    double reference = 0.0;
    std::vector<int> idx(static_cast<std::size_t>(D), 0);
    VectorXd z(D);
    for (long node = 0; node < static_cast<long>(std::pow(n, D)); ++node) {
      long rest = node;
      double w = 1.0;
      for (Index i = 0; i < D; ++i) {
        const int k = static_cast<int>(rest % n);
        rest /= n;
        z[i] = gh.nodes[k];
        w *= gh.weights[k];
      }
      const VectorXd v = q.mean.segment(v0, D) + C * z;
      const MatrixXd L = cpc_factor(v.tail(m), K);
      const VectorXd sd = v.head(K).array().exp();
      const MatrixXd W = (sd.asDiagonal() * L * L.transpose() * sd.asDiagonal()).inverse();
      double f = lkj_log_density(L, eta) + cpc_log_jacobian(v.tail(m), K);
      const double log_det = v.head(K).sum() + L.diagonal().array().log().sum();
      for (Index g = 0; g < J; ++g) {
        const VectorXd mu = q.mean.segment(g * K, K) + B[static_cast<std::size_t>(g)] * z;
        f += -0.5 * K * std::log(2.0 * M_PI) - log_det -
             0.5 * ((W * Cg[static_cast<std::size_t>(g)]).trace() + mu.dot(W * mu));
      }
      reference += w * f;
    }
    const double e = value_of(tilt, col, eta, q);
    INFO("tilt " << e << ", tensor Gauss-Hermite " << reference);
    CHECK(e == doctest::Approx(reference).epsilon(tolerance));
  }
}

TEST_CASE("correlated tilt: gradient against central differences") {
  for (Index K : {3, 4})
    for (bool dense : {true, false}) {
      INFO("K = " << K << (dense ? " fullrank" : " meanfield"));
      const Index J = 3, P = J * K + K + K * (K - 1) / 2;
      const double eta = 2.0;
      const CorrelatedTilt tilt(K);
      const CorrelatedTilt::Columns col = layout(K, J);
      const vi::GaussianQ q = test::random_q(P, dense, 41, 0.2);
      const Result r = evaluate(&tilt, col, eta, q);
      REQUIRE(std::isfinite(r.value));
      const double scale = 1e-3 * std::max(1.0, std::abs(r.value)), h = 1e-5;
      for (Index j = 0; j < P; ++j) {
        if (!test::fd_entry(j, P)) continue;
        vi::GaussianQ a = q, b = q;
        a.mean[j] += h;
        b.mean[j] -= h;
        INFO("d/dmean " << j);
        check_derivative((value_of(tilt, col, eta, a) - value_of(tilt, col, eta, b)) / (2 * h), r.d_mean[j], scale);
      }
      if (dense) {
        CHECK((r.G - r.G.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * r.G.cwiseAbs().maxCoeff());
        const MatrixXd dL = 2.0 * r.G * q.chol;
        for (Index i = 0; i < P; ++i)
          for (Index k = 0; k <= i; ++k) {
            if (!test::fd_entry(i * P + k, P * P)) continue;
            vi::GaussianQ a = q, b = q;
            a.chol(i, k) += h;
            b.chol(i, k) -= h;
            INFO("d/dL(" << i << ", " << k << ")");
            check_derivative((value_of(tilt, col, eta, a) - value_of(tilt, col, eta, b)) / (2 * h), dL(i, k), scale);
          }
      } else {
        for (Index j = 0; j < P; ++j) {
          if (!test::fd_entry(j, P)) continue;
          vi::GaussianQ a = q, b = q;
          const double v = q.sd[j] * q.sd[j], dv = h * v;
          a.sd[j] = std::sqrt(v + dv);
          b.sd[j] = std::sqrt(v - dv);
          INFO("d/dvar " << j);
          check_derivative((value_of(tilt, col, eta, a) - value_of(tilt, col, eta, b)) / (2 * dv), r.G(j, j), scale / v);
        }
      }
    }
}

TEST_CASE("correlated tilt: K = 2 is the written-out pair, value and gradient") {
  const Index J = 5, P = 2 * J + 3;
  const CorrelatedTilt tilt(2);
  const CorrelatedTilt::Columns col = layout(2, J);
  for (bool dense : {true, false})
    for (double eta : {1.0, 3.5}) {
      INFO((dense ? "fullrank" : "meanfield") << ", eta " << eta);
      const vi::GaussianQ q = test::random_q(P, dense, 17, 0.3);
      const Result general = evaluate(&tilt, col, eta, q), pair = evaluate(nullptr, col, eta, q);
      CHECK(general.value == doctest::Approx(pair.value).epsilon(1e-13));
      CHECK((general.d_mean - pair.d_mean).cwiseAbs().maxCoeff() <= 1e-12 * pair.d_mean.cwiseAbs().maxCoeff());
      CHECK((general.G - pair.G).cwiseAbs().maxCoeff() <= 1e-12 * pair.G.cwiseAbs().maxCoeff());
    }
}

TEST_CASE("three correlated effects: the prior is exact, sparse equals fullrank at the same q") {
  for (const char* lik : {"bernoulli_logit", "poisson_log", "normal"}) {
    INFO(lik);
    test::Setup s(lik, true, true);
    CHECK(s.expected->prior().exact());
    const auto pat = test::pattern_of(s);
    const Index P = s.model.dim();
    vi::GaussianQ qs, qd;
    test::both_q(pat, test::random_precision(*pat, 37, 0.2), VectorXd::LinSpaced(P, -0.4, 0.4), qs, qd);
    vi::ExpectationGradient gs, gd;
    const double es = s.expected->evaluate(qs, &gs), ed = s.expected->evaluate(qd, &gd);
    CHECK(s.expected->value_se() == 0.0);
    CHECK(es == doctest::Approx(ed).epsilon(1e-11));
    CHECK((gs.d_mean - gd.d_mean).cwiseAbs().maxCoeff() <= 1e-10 * gd.d_mean.cwiseAbs().maxCoeff());
    test::check_sparse_cov_gradient(*pat, gs, gd);
  }
}

TEST_CASE("three correlated effects: the sparse optimum is fullrank's") {
  for (const char* lik : {"bernoulli_logit", "normal"}) {
    INFO(lik);
    test::Setup s(lik, true, true);
    const test::DenseAndSparse fits = test::fit_dense_and_sparse(s);
    REQUIRE(fits.dense.run.converged);
    REQUIRE(fits.sparse.run.converged);
    const VectorXd sd = fits.dense.run.q->marginal_sd();
    CHECK(((fits.sparse.run.q->mean() - fits.dense.run.q->mean()).cwiseQuotient(sd)).cwiseAbs().maxCoeff() <= 1e-6);
    CHECK(((fits.sparse.run.q->marginal_sd() - sd).cwiseQuotient(sd)).cwiseAbs().maxCoeff() <= 1e-6);
  }
}

}  // namespace test_correlated_tilt
