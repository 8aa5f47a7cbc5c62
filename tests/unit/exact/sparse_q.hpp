#pragma once
// Sparse-family q's for the exact method's unit tests: a model's precision pattern, a random
// precision on it, and the same Gaussian as a sparse and as a dense (fullrank) q.
#include <doctest/doctest.h>

#include <Eigen/Cholesky>
#include <memory>
#include <random>

#include "inference/exact/expected_log_density.hpp"
#include "models/sparse_pattern.hpp"
#include "multilevel_setup.hpp"

namespace bvi::test {

using Eigen::Index;

inline std::shared_ptr<const vi::BlockPattern> pattern_of(Setup& s) {
  reduce::SerialCommunicator comm;
  return models::make_block_pattern(s.model, s.view, comm);
}

// A random precision on the pattern with marginal sds about `scale`: D^-1 (I + E) D^-1 with E
// symmetric on the pattern and I + E diagonally dominant.
inline Eigen::MatrixXd random_precision(const vi::BlockPattern& p, unsigned seed, double scale) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), sd(0.5 * scale, 1.5 * scale);
  const Index P = p.dim();
  Eigen::MatrixXd E = Eigen::MatrixXd::Zero(P, P);
  for (Index i = 0; i < P; ++i)
    for (Index k = 0; k < i; ++k)
      if (p.contains(i, k)) E(i, k) = E(k, i) = u(rng);
  const Eigen::VectorXd rows = E.cwiseAbs().rowwise().sum();
  E /= 1.5 * std::max(1.0, rows.maxCoeff());
  E.diagonal().setOnes();
  Eigen::VectorXd d(P);
  for (Index i = 0; i < P; ++i) d[i] = 1.0 / sd(rng);
  return d.asDiagonal() * E * d.asDiagonal();
}

inline Eigen::VectorXd on_pattern(const vi::BlockPattern& p, const Eigen::MatrixXd& A) {
  Eigen::VectorXd v = Eigen::VectorXd::Zero(p.size());
  for (const auto& e : p.lower_entries()) {
    v[e.slot] = A(e.row, e.col);
    v[p.slot(e.col, e.row)] = A(e.col, e.row);
  }
  return v;
}

// The same q both ways.
inline void both_q(const std::shared_ptr<const vi::BlockPattern>& pat, const Eigen::MatrixXd& Lambda,
                   const Eigen::VectorXd& mean, vi::GaussianQ& sparse, vi::GaussianQ& dense) {
  sparse.mean = dense.mean = mean;
  sparse.factor = std::make_shared<vi::SparseFactor>(pat);
  REQUIRE(sparse.set_precision(on_pattern(*pat, Lambda)));
  const Eigen::MatrixXd Sigma = Lambda.llt().solve(Eigen::MatrixXd::Identity(mean.size(), mean.size()));
  dense.dense = true;
  dense.chol = Eigen::LLT<Eigen::MatrixXd>(0.5 * (Sigma + Sigma.transpose())).matrixL();
}

// The sparse q's dE/dSigma against the dense q's at the same Gaussian: on the pattern within
// 1e-10, off it (where the sparse family stores nothing) below 1e-12, relative to the largest
// entry of the symmetrized dense gradient.
inline void check_sparse_cov_gradient(const vi::BlockPattern& pat, const vi::ExpectationGradient& sparse,
                                      const vi::ExpectationGradient& dense) {
  const Eigen::MatrixXd G = 0.5 * (dense.d_cov + dense.d_cov.transpose());
  const double scale = G.cwiseAbs().maxCoeff();
  double worst_on = 0.0, worst_off = 0.0;
  for (Index i = 0; i < G.rows(); ++i)
    for (Index k = 0; k < G.cols(); ++k) {
      const Index slot = pat.slot(i, k);
      if (slot >= 0)
        worst_on = std::max(worst_on, std::abs(sparse.d_sparse[slot] - G(i, k)));
      else
        worst_off = std::max(worst_off, std::abs(G(i, k)));
    }
  CHECK(worst_on <= 1e-10 * scale);
  CHECK(worst_off <= 1e-12 * scale);
}

}  // namespace bvi::test
