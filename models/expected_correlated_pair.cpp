// The exact expectation of a factor's two correlated effects' prior term (ExpectedPrior::
// CorrelatedPair): sum_g log MVN(r_g | 0, D R D) + log LKJ(L | eta) + log |dL/dy|, with
// D = diag(e^u1, e^u2), R = [[1, rho], [rho, 1]], rho = tanh y (cholesky_corr for K = 2).
//
// With W = (D R D)^-1 = D^-1 R^-1 D^-1 and R^-1 = [[cosh^2 y, -sinh y cosh y], [.., cosh^2 y]],
//   r' W r = e^{-2u1} cosh^2 y r1^2 + e^{-2u2} cosh^2 y r2^2 - 2 e^{-u1-u2} sinh y cosh y r1 r2,
// and cosh^2 y = (e^{2y} + 2 + e^{-2y}) / 4, sinh y cosh y = (e^{2y} - e^{-2y}) / 4: eight terms
// c e^{a . v} r_p r_q in v = (u1, u2, y). Under any Gaussian q (r_p, r_q, v) is jointly normal and
//   E[e^{a . v} r_p r_q] = tau ((m_p + S_pv a)(m_q + S_qv a) + S_pq),  tau = e^{a . m_v + a' S_vv a / 2}
// (the exponential tilt), closed form with closed-form derivatives in every mean and covariance
// entry it reads: the effects' own, theirs with (u1, u2, y), and (u1, u2, y)'s. The rest,
//   -J log 2 pi - J (u1 + u2) - J log det L + log LKJ + log J = -J log 2 pi - J (u1 + u2)
//   + (J - 2 eta) log cosh y - log c_2(eta),
// is linear in u and one Gauss–Hermite integral in y (the points doubled until halving them
// changes the value by < 1e-12, as for the grid terms). Nothing is a sample average, so the fixed
// point of every family is noise-free.
#include <array>
#include <cmath>

#include "inference/ad/ops/lkj_corr_cholesky_lpdf.hpp"
#include "inference/quadrature/gauss_hermite.hpp"
#include "models/expected_prior.hpp"

namespace bvi::models {

namespace {

constexpr double kLog2Pi = 1.83787706640934548356;
constexpr int kMaxPoints = 256;

struct Tilt {
  double c;                // the term's coefficient in r' W r
  std::array<double, 3> a;  // its exponent over (u1, u2, y)
  int p, q;                // the effects it multiplies
};

constexpr Tilt kTerms[8] = {
    {0.25, {-2, 0, 2}, 0, 0}, {0.5, {-2, 0, 0}, 0, 0}, {0.25, {-2, 0, -2}, 0, 0},
    {0.25, {0, -2, 2}, 1, 1}, {0.5, {0, -2, 0}, 1, 1}, {0.25, {0, -2, -2}, 1, 1},
    {-0.5, {-1, -1, 2}, 0, 1}, {0.5, {-1, -1, -2}, 0, 1},
};

// log cosh y without overflow.
double log_cosh(double y) {
  const double a = std::abs(y);
  return a + std::log1p(std::exp(-2.0 * a)) - 0.69314718055994530942;
}

}  // namespace

double correlated_pair_value(const CorrelatedTilt::Columns& g, double eta, const vi::GaussianQ& q,
                             Eigen::VectorXd* d_mean, const CorrelatedTilt::AddCov& add_cov, int* points) {
  const bool grad = d_mean != nullptr;
  const Index J = g.groups;
  const std::array<Index, 3> v{g.sd_offset, g.sd_offset + 1, g.L_offset};
  std::array<double, 3> mv;
  double Svv[3][3];
  for (int i = 0; i < 3; ++i) {
    mv[i] = q.mean[v[i]];
    for (int j = 0; j < 3; ++j) Svv[i][j] = q.cov(v[i], v[j]);
  }
  // tau per term: the same for every group.
  std::array<double, 8> tau;
  for (int t = 0; t < 8; ++t) {
    const auto& a = kTerms[t].a;
    double e = 0.0;
    for (int i = 0; i < 3; ++i) {
      e += a[i] * mv[i];
      for (int j = 0; j < 3; ++j) e += 0.5 * a[i] * a[j] * Svv[i][j];
    }
    tau[t] = std::exp(e);
  }
  // -1/2 sum_g r' W r, and the sums over groups of each term's expectation (for v's gradient).
  double quad = 0.0;
  std::array<double, 8> sum_E{};
  for (Index gr = 0; gr < J; ++gr) {
    const Index r[2] = {g.r_offset + 2 * gr, g.r_offset + 2 * gr + 1};
    double m[2], Srv[2][3];
    for (int p = 0; p < 2; ++p) {
      m[p] = q.mean[r[p]];
      for (int i = 0; i < 3; ++i) Srv[p][i] = q.cov(r[p], v[i]);
    }
    const double S01 = q.cov(r[0], r[1]);
    const double S00 = q.var(r[0]), S11 = q.var(r[1]);
    double dm[2] = {0.0, 0.0}, dSrv[2][3] = {{0, 0, 0}, {0, 0, 0}}, dS[3] = {0, 0, 0};  // dS: S00, S11, S01
    for (int t = 0; t < 8; ++t) {
      const Tilt& T = kTerms[t];
      double a_[2];
      for (int p = 0; p < 2; ++p) a_[p] = m[p] + Srv[p][0] * T.a[0] + Srv[p][1] * T.a[1] + Srv[p][2] * T.a[2];
      const double Spq = T.p == T.q ? (T.p == 0 ? S00 : S11) : S01;
      const double E = tau[t] * (a_[T.p] * a_[T.q] + Spq);
      quad += T.c * E;
      sum_E[t] += E;
      if (!grad) continue;
      // d(c E)/d(m_p, m_q), d/dS_{p,v_i} (the one number S_pv), d/dS_pq.
      const double k = T.c * tau[t];
      if (T.p == T.q) {
        dm[T.p] += 2.0 * k * a_[T.p];
        for (int i = 0; i < 3; ++i) dSrv[T.p][i] += 2.0 * k * T.a[i] * a_[T.p];
        dS[T.p] += k;
      } else {
        dm[0] += k * a_[1];
        dm[1] += k * a_[0];
        for (int i = 0; i < 3; ++i) {
          dSrv[0][i] += k * T.a[i] * a_[1];
          dSrv[1][i] += k * T.a[i] * a_[0];
        }
        dS[2] += k;
      }
    }
    if (!grad) continue;
    // The value is -quad / 2: every derivative above times -1/2. A covariance S_ik (i != k) read
    // as one number gets half of its derivative on each ordered pair.
    for (int p = 0; p < 2; ++p) {
      (*d_mean)[r[p]] += -0.5 * dm[p];
      add_cov(r[p], r[p], -0.5 * dS[p]);
      for (int i = 0; i < 3; ++i) {
        add_cov(r[p], v[i], -0.25 * dSrv[p][i]);
        add_cov(v[i], r[p], -0.25 * dSrv[p][i]);
      }
    }
    add_cov(r[0], r[1], -0.25 * dS[2]);
    add_cov(r[1], r[0], -0.25 * dS[2]);
  }
  double total = -0.5 * quad;
  if (grad)
    for (int t = 0; t < 8; ++t) {
      // d(c E)/dm_v = c E a and d(c E)/dS_vv = c E a a' / 2 (as a symmetric matrix), times -1/2.
      const double k = -0.5 * kTerms[t].c * sum_E[t];
      for (int i = 0; i < 3; ++i) {
        (*d_mean)[v[i]] += k * kTerms[t].a[i];
        for (int j = 0; j < 3; ++j) add_cov(v[i], v[j], 0.5 * k * kTerms[t].a[i] * kTerms[t].a[j]);
      }
    }
  // -J log 2 pi - J (u1 + u2).
  const double Jd = static_cast<double>(J);
  total += -Jd * kLog2Pi - Jd * (mv[0] + mv[1]);
  if (grad) {
    (*d_mean)[v[0]] -= Jd;
    (*d_mean)[v[1]] -= Jd;
  }
  // (J - 2 eta) E[log cosh y] - log c_2(eta), by Gauss–Hermite in y.
  const double w = Jd - 2.0 * eta, sy = std::sqrt(Svv[2][2]);
  auto rule = [&](int points, double* d_m, double* d_var) {
    const quadrature::GaussHermiteRule& gh = quadrature::gauss_hermite(points);
    double val = 0.0, dm = 0.0, dv = 0.0;
    for (int k = 0; k < gh.size(); ++k) {
      const double y = mv[2] + sy * gh.nodes[k], th = std::tanh(y);
      val += gh.weights[k] * log_cosh(y);
      dm += gh.weights[k] * th;
      dv += gh.weights[k] * (1.0 - th * th);
    }
    if (d_m) {
      *d_m = w * dm;
      *d_var = 0.5 * w * dv;  // Price: dE/dVar = E[f''] / 2
    }
    return w * val;
  };
  int n = 16;
  double d_my = 0.0, d_vy = 0.0;
  double value = rule(n, &d_my, &d_vy);
  while (n < kMaxPoints) {
    const double coarse = rule(n / 2, nullptr, nullptr);
    if (std::abs(value - coarse) <= 1e-12 * (1.0 + std::abs(value)) || !std::isfinite(value)) break;
    n *= 2;
    value = rule(n, &d_my, &d_vy);
  }
  if (points) *points = n;
  total += value - ad::lkj_log_normalizer(eta, 2);
  if (grad) {
    (*d_mean)[v[2]] += d_my;
    add_cov(v[2], v[2], d_vy);
  }
  return total;
}

double ExpectedPrior::pair_value(CorrelatedPair& c, const vi::GaussianQ& q, vi::ExpectationGradient* grad) {
  const GroupPrior& g = *c.group;
  const bool dense = q.dense;
  const CorrelatedTilt::Columns col{g.r_offset, g.groups, g.sd_offset, g.L_offset};
  if (!grad) return correlated_pair_value(col, g.eta, q, nullptr, {}, &c.points);
  return correlated_pair_value(col, g.eta, q, &grad->d_mean,
                               [&](Index i, Index k, double v) { add_cov(grad, dense, i, k, v); }, &c.points);
}

}  // namespace bvi::models
