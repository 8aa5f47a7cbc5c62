#pragma once
// The exact expectation, under any Gaussian q, of a factor's K correlated effects' prior term
//   sum_g log MVN(r_g | 0, D R D) + log LKJ(L | eta) + log |dL/dy|,
// D = diag(e^u) (u the log sds), R = L L' with L from cholesky_corr of y (canonical partial
// correlations z_ij = tanh y_ij, L_ij = z_ij prod_{m<j} w_im, L_ii = prod_{m<i} w_im,
// w = sqrt(1 - z^2) = 1 / cosh y), for any K (K = 2 is also expected_correlated_pair.cpp).
//
// L^-1 is a polynomial in sinh y and cosh y: (L^-1)_ii = prod_{m<i} cosh y_im and, by forward
// substitution with L_ik / L_ii = sinh y_ik prod_{k<m<i} cosh y_im,
//   (L^-1)_ij = - sum_{k=j}^{i-1} sinh y_ik prod_{k<m<i} cosh y_im (L^-1)_kj.
// Writing sinh, cosh as (e^y -+ e^-y) / 2 and multiplying out, W = D^-1 L^-T L^-1 D^-1 has
// entries that are finite sums c e^{a . v} over v = (u, y), so
//   r' W r = sum_t c_t e^{a_t . v} r_p r_q
// (8 terms for K = 2, 77 for K = 3, 884 for K = 4, 11041 for K = 5), and under q each is the
// Gaussian tilt E[e^{a . v} r_p r_q] = tau ((m_p + S_pv a)(m_q + S_qv a) + S_pq),
// tau = e^{a . m_v + a' S_vv a / 2}, closed form with closed-form derivatives. The rest is
//   -J K/2 log 2 pi - J sum_k u_k + sum_{i>m} (J - K - 2 eta + 2 + m) log cosh y_im - log c_K(eta)
// (-J log det L = J sum log cosh y; log LKJ = -sum (K - i + 2 eta - 3) log cosh y_im - log c_K;
// log |dL/dy| = -sum (i - m + 1) log cosh y_im), one Gauss–Hermite integral per y, the points
// doubled until halving them changes the value by < 1e-12. Nothing is a sample average.
#include <Eigen/Core>
#include <functional>
#include <vector>

#include "inference/exact/expected_log_density.hpp"

namespace bvi::models {

using Index = Eigen::Index;

class CorrelatedTilt {
 public:
  // Above this many effects the term list grows past kMaxTerms (K = 5: 11041 per group) and the
  // factor's prior is left to the sample average.
  static constexpr Index kMaxEffects = 4;
  // Builds r' W r's terms for K >= 2 effects.
  explicit CorrelatedTilt(Index K);

  Index effects() const { return K_; }
  Index terms() const { return static_cast<Index>(c_.size()); }
  // Term t: coefficient, the effects (p <= q; a p < q term counts both orders), and its exponent
  // over (u_0 .. u_{K-1}, y_0 .. y_{m-1}) (y in cholesky_corr's free-entry order).
  double coefficient(Index t) const { return c_[static_cast<std::size_t>(t)]; }
  int p(Index t) const { return p_[static_cast<std::size_t>(t)]; }
  int q(Index t) const { return q_[static_cast<std::size_t>(t)]; }
  Eigen::VectorXd exponent(Index t) const { return a_.row(t).transpose(); }
  // The coefficient of E log cosh y_j (free entry j) for J groups.
  double log_cosh_weight(Index j, double J, double eta) const;

  // Where the factor's columns are: effect k of group g at r_offset + g K + k, log sd k at
  // sd_offset + k, y_j at L_offset + j.
  struct Columns {
    Index r_offset, groups, sd_offset, L_offset;
  };
  // G_ik += g for the ordered pair (i, k), in the family's convention.
  using AddCov = std::function<void(Index, Index, double)>;
  // The expectation; with d_mean, adds dE/dmean into it and dE/dSigma through add_cov.
  // `points` returns the Gauss–Hermite points used.
  double value(const Columns& col, double eta, const vi::GaussianQ& q, Eigen::VectorXd* d_mean,
               const AddCov& add_cov, int* points = nullptr) const;

 private:
  Index K_, m_, D_;
  std::vector<double> c_;
  std::vector<int> p_, q_;
  Eigen::MatrixXd a_;  // terms x D, row-major use
};

// K = 2 written out (eight terms; models/expected_correlated_pair.cpp), the same expectation by
// the same arguments as CorrelatedTilt(2).value.
double correlated_pair_value(const CorrelatedTilt::Columns& col, double eta, const vi::GaussianQ& q,
                             Eigen::VectorXd* d_mean, const CorrelatedTilt::AddCov& add_cov, int* points = nullptr);

}  // namespace bvi::models
