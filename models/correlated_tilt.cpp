#include "models/correlated_tilt.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

#include "inference/ad/math/cholesky_corr.hpp"
#include "inference/ad/ops/lkj_corr_cholesky_lpdf.hpp"
#include "inference/quadrature/gauss_hermite.hpp"

namespace bvi::models {

namespace {

constexpr double kTiltHalfLog2Pi = 0.91893853320467274178;
constexpr int kTiltMaxPoints = 256;

// A polynomial in e^{+-y_j}: exponent vector over the y's -> coefficient. The coefficients are
// sums of products of +-1/2^n, exact in double, so cancelling terms cancel exactly.
using TiltPoly = std::map<std::vector<int>, double>;

TiltPoly poly_multiply(const TiltPoly& A, const TiltPoly& B) {
  TiltPoly C;
  for (const auto& [a, ca] : A)
    for (const auto& [b, cb] : B) {
      std::vector<int> e(a.size());
      for (std::size_t i = 0; i < a.size(); ++i) e[i] = a[i] + b[i];
      C[e] += ca * cb;
    }
  return C;
}

void poly_add_into(TiltPoly& A, const TiltPoly& B, double s) {
  for (const auto& [b, cb] : B) A[b] += s * cb;
}

// cosh y_j (sign +1) or sinh y_j (sign -1) as (e^y + sign e^-y) / 2.
TiltPoly poly_hyperbolic(Index m, Index j, double sign) {
  std::vector<int> up(static_cast<std::size_t>(m), 0), down = up;
  up[static_cast<std::size_t>(j)] = 1;
  down[static_cast<std::size_t>(j)] = -1;
  return TiltPoly{{up, 0.5}, {down, 0.5 * sign}};
}

// log cosh y without overflow.
double tilt_log_cosh(double y) {
  const double a = std::abs(y);
  return a + std::log1p(std::exp(-2.0 * a)) - 0.69314718055994530942;
}

}  // namespace

CorrelatedTilt::CorrelatedTilt(Index K) : K_(K), m_(ad::corr::free_entries(K)), D_(K + m_) {
  if (K < 2) throw std::invalid_argument("CorrelatedTilt: needs two or more effects");
  using ad::corr::free_index;
  const TiltPoly one{{std::vector<int>(static_cast<std::size_t>(m_), 0), 1.0}};
  // Linv[i][j], j <= i.
  std::vector<std::vector<TiltPoly>> Linv(static_cast<std::size_t>(K), std::vector<TiltPoly>(static_cast<std::size_t>(K)));
  for (Index i = 0; i < K; ++i) {
    TiltPoly d = one;
    for (Index mm = 0; mm < i; ++mm) d = poly_multiply(d, poly_hyperbolic(m_, free_index(i, mm), 1.0));
    Linv[i][i] = d;
    for (Index j = 0; j < i; ++j) {
      TiltPoly s;
      for (Index k = j; k < i; ++k) {
        TiltPoly t = poly_hyperbolic(m_, free_index(i, k), -1.0);
        for (Index mm = k + 1; mm < i; ++mm) t = poly_multiply(t, poly_hyperbolic(m_, free_index(i, mm), 1.0));
        poly_add_into(s, poly_multiply(t, Linv[k][j]), -1.0);
      }
      Linv[i][j] = s;
    }
  }
  // (L^-T L^-1)_pq = sum_{k >= max(p, q)} Linv_kp Linv_kq, times e^{-u_p - u_q}.
  std::vector<std::vector<double>> rows;
  for (Index p = 0; p < K; ++p)
    for (Index q = p; q < K; ++q) {
      TiltPoly s;
      for (Index k = q; k < K; ++k) poly_add_into(s, poly_multiply(Linv[k][p], Linv[k][q]), p == q ? 1.0 : 2.0);
      for (const auto& [e, c] : s) {
        if (c == 0.0) continue;
        std::vector<double> a(static_cast<std::size_t>(D_), 0.0);
        a[static_cast<std::size_t>(p)] -= 1.0;
        a[static_cast<std::size_t>(q)] -= 1.0;
        for (Index j = 0; j < m_; ++j) a[static_cast<std::size_t>(K + j)] = e[static_cast<std::size_t>(j)];
        rows.push_back(std::move(a));
        c_.push_back(c);
        p_.push_back(static_cast<int>(p));
        q_.push_back(static_cast<int>(q));
      }
    }
  a_.resize(static_cast<Index>(rows.size()), D_);
  for (Index t = 0; t < a_.rows(); ++t)
    for (Index i = 0; i < D_; ++i) a_(t, i) = rows[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)];
}

double CorrelatedTilt::log_cosh_weight(Index j, double J, double eta) const {
  // y_j is L_im's: m is its column.
  Index i = 1;
  while (ad::corr::free_index(i + 1, 0) <= j) ++i;
  const Index mcol = j - ad::corr::free_index(i, 0);
  return J - static_cast<double>(K_) - 2.0 * eta + 2.0 + static_cast<double>(mcol);
}

double CorrelatedTilt::value(const Columns& col, double eta, const vi::GaussianQ& q, Eigen::VectorXd* d_mean,
                             const AddCov& add_cov, int* points) const {
  const Index K = K_, D = D_, T = terms(), J = col.groups;
  std::vector<Index> v(static_cast<std::size_t>(D));
  for (Index i = 0; i < K; ++i) v[static_cast<std::size_t>(i)] = col.sd_offset + i;
  for (Index j = 0; j < m_; ++j) v[static_cast<std::size_t>(K + j)] = col.L_offset + j;
  Eigen::VectorXd mv(D);
  Eigen::MatrixXd Svv(D, D);
  for (Index i = 0; i < D; ++i) {
    mv[i] = q.mean[v[static_cast<std::size_t>(i)]];
    for (Index k = 0; k < D; ++k) Svv(i, k) = q.cov(v[static_cast<std::size_t>(i)], v[static_cast<std::size_t>(k)]);
  }
  // tau per term: the same for every group.
  const Eigen::VectorXd tau = (a_ * mv + 0.5 * ((a_ * Svv).cwiseProduct(a_)).rowwise().sum()).array().exp().matrix();
  // -1/2 sum_g r' W r, and the sums over groups of each term's expectation (for v's gradient).
  double quad = 0.0;
  Eigen::VectorXd sum_E = Eigen::VectorXd::Zero(T);
  Eigen::VectorXd m(K), dm(K);
  Eigen::MatrixXd Srv(K, D), Srr(K, K), dSrv(K, D), dSrr(K, K), B(T, K);
  for (Index gr = 0; gr < J; ++gr) {
    const Index base = col.r_offset + gr * K;
    for (Index p = 0; p < K; ++p) {
      m[p] = q.mean[base + p];
      for (Index i = 0; i < D; ++i) Srv(p, i) = q.cov(base + p, v[static_cast<std::size_t>(i)]);
      for (Index k = p; k < K; ++k) Srr(p, k) = Srr(k, p) = q.cov(base + p, base + k);
    }
    // b_tp = m_p + S_pv a_t for every term and effect.
    B.noalias() = a_ * Srv.transpose();
    B.rowwise() += m.transpose();
    if (d_mean) {
      dm.setZero();
      dSrv.setZero();
      dSrr.setZero();
    }
    for (Index t = 0; t < T; ++t) {
      const int p = p_[static_cast<std::size_t>(t)], qq = q_[static_cast<std::size_t>(t)];
      const double bp = B(t, p), bq = B(t, qq);
      const double E = tau[t] * (bp * bq + Srr(p, qq));
      quad += c_[static_cast<std::size_t>(t)] * E;
      sum_E[t] += E;
      if (!d_mean) continue;
      // d(c E)/d(m_p, m_q), d/dS_{p,v_i} (the one number S_pv), d/dS_pq.
      const double k = c_[static_cast<std::size_t>(t)] * tau[t];
      if (p == qq) {
        dm[p] += 2.0 * k * bp;
        dSrv.row(p) += (2.0 * k * bp) * a_.row(t);
        dSrr(p, p) += k;
      } else {
        dm[p] += k * bq;
        dm[qq] += k * bp;
        dSrv.row(p) += (k * bq) * a_.row(t);
        dSrv.row(qq) += (k * bp) * a_.row(t);
        dSrr(p, qq) += k;
      }
    }
    if (!d_mean) continue;
    // The value is -quad / 2: every derivative above times -1/2. A covariance S_ik (i != k) read
    // as one number gets half of its derivative on each ordered pair.
    for (Index p = 0; p < K; ++p) {
      (*d_mean)[base + p] += -0.5 * dm[p];
      add_cov(base + p, base + p, -0.5 * dSrr(p, p));
      for (Index i = 0; i < D; ++i) {
        add_cov(base + p, v[static_cast<std::size_t>(i)], -0.25 * dSrv(p, i));
        add_cov(v[static_cast<std::size_t>(i)], base + p, -0.25 * dSrv(p, i));
      }
      for (Index k = p + 1; k < K; ++k) {
        add_cov(base + p, base + k, -0.25 * dSrr(p, k));
        add_cov(base + k, base + p, -0.25 * dSrr(p, k));
      }
    }
  }
  double total = -0.5 * quad;
  if (d_mean) {
    // d(c E)/dm_v = c E a and d(c E)/dS_vv = c E a a' / 2 (as a symmetric matrix), times -1/2.
    Eigen::VectorXd k(T);
    for (Index t = 0; t < T; ++t) k[t] = -0.5 * c_[static_cast<std::size_t>(t)] * sum_E[t];
    const Eigen::VectorXd g_m = a_.transpose() * k;
    const Eigen::MatrixXd g_S = 0.5 * a_.transpose() * k.asDiagonal() * a_;
    for (Index i = 0; i < D; ++i) {
      (*d_mean)[v[static_cast<std::size_t>(i)]] += g_m[i];
      for (Index j = 0; j < D; ++j) add_cov(v[static_cast<std::size_t>(i)], v[static_cast<std::size_t>(j)], g_S(i, j));
    }
  }
  // -J K/2 log 2 pi - J sum u.
  const double Jd = static_cast<double>(J);
  total += -Jd * static_cast<double>(K) * kTiltHalfLog2Pi - Jd * mv.head(K).sum();
  if (d_mean)
    for (Index i = 0; i < K; ++i) (*d_mean)[v[static_cast<std::size_t>(i)]] -= Jd;
  // sum_j w_j E[log cosh y_j] - log c_K(eta), by Gauss–Hermite in each y_j.
  Eigen::VectorXd w(m_), sy(m_), d_my(m_), d_vy(m_);
  for (Index j = 0; j < m_; ++j) {
    w[j] = log_cosh_weight(j, Jd, eta);
    sy[j] = std::sqrt(Svv(K + j, K + j));
  }
  auto rule = [&](int n, bool derivatives) {
    const quadrature::GaussHermiteRule& gh = quadrature::gauss_hermite(n);
    double val = 0.0;
    for (Index j = 0; j < m_; ++j) {
      double vj = 0.0, dmj = 0.0, dvj = 0.0;
      for (int k = 0; k < gh.size(); ++k) {
        const double y = mv[K + j] + sy[j] * gh.nodes[k], th = std::tanh(y);
        vj += gh.weights[k] * tilt_log_cosh(y);
        dmj += gh.weights[k] * th;
        dvj += gh.weights[k] * (1.0 - th * th);
      }
      val += w[j] * vj;
      if (derivatives) {
        d_my[j] = w[j] * dmj;
        d_vy[j] = 0.5 * w[j] * dvj;  // Price: dE/dVar = E[f''] / 2
      }
    }
    return val;
  };
  int n = 16;
  double value = rule(n, true);
  while (n < kTiltMaxPoints) {
    const double coarse = rule(n / 2, false);
    if (std::abs(value - coarse) <= 1e-12 * (1.0 + std::abs(value)) || !std::isfinite(value)) break;
    n *= 2;
    value = rule(n, true);
  }
  if (points) *points = n;
  total += value - ad::lkj_log_normalizer(eta, K);
  if (d_mean)
    for (Index j = 0; j < m_; ++j) {
      (*d_mean)[v[static_cast<std::size_t>(K + j)]] += d_my[j];
      add_cov(v[static_cast<std::size_t>(K + j)], v[static_cast<std::size_t>(K + j)], d_vy[j]);
    }
  return total;
}

}  // namespace bvi::models
