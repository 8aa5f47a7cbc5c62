#include "inference/families/fullrank.hpp"

#include <cmath>

namespace bvi::vi {

FullRank::FullRank(Index dim) : Family(dim, dim + dim * (dim + 1) / 2) {}  // log-diagonal 0: L = I

void FullRank::fill_cholesky(Eigen::MatrixXd& L) const {
  L.setZero(dim_, dim_);
  for (Index j = 0; j < dim_; ++j) {
    L(j, j) = std::exp(params_[slot(j, j)]);
    for (Index i = j + 1; i < dim_; ++i) L(i, j) = params_[slot(i, j)];
  }
}

Eigen::MatrixXd FullRank::cholesky() const {
  Eigen::MatrixXd L;
  fill_cholesky(L);
  return L;
}

void FullRank::set_cholesky(const Eigen::MatrixXd& L) {
  for (Index j = 0; j < dim_; ++j) {
    params_[slot(j, j)] = std::log(L(j, j));
    for (Index i = j + 1; i < dim_; ++i) params_[slot(i, j)] = L(i, j);
  }
}

void FullRank::transform(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                         Eigen::Ref<Eigen::MatrixXd> zeta) const {
  fill_cholesky(L_);  // into reused storage: no allocation per step
  // Rows are draws: zeta = 1 mu^T + eps L^T, one GEMM for all S draws.
  zeta.noalias() = eps * L_.transpose();
  zeta.rowwise() += params_.head(dim_).transpose();
}

void FullRank::elbo_gradient(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                             const Eigen::Ref<const Eigen::MatrixXd>& grad_logp,
                             Eigen::VectorXd& grad) const {
  const double inv_s = 1.0 / static_cast<double>(eps.rows());
  grad.resize(params_.size());
  grad.head(dim_) = grad_logp.colwise().sum().transpose() * inv_s;
  GtE_.noalias() = grad_logp.transpose() * eps;  // (i, j) = sum_s g_si eps_sj
  for (Index j = 0; j < dim_; ++j) {
    grad[slot(j, j)] = GtE_(j, j) * inv_s * std::exp(params_[slot(j, j)]) + 1.0;
    for (Index i = j + 1; i < dim_; ++i) grad[slot(i, j)] = GtE_(i, j) * inv_s;
  }
}

double FullRank::log_det_scale() const {
  double s = 0;
  for (Index j = 0; j < dim_; ++j) s += params_[slot(j, j)];
  return s;
}

Eigen::VectorXd FullRank::marginal_sd() const {
  return cholesky().rowwise().norm();
}

Eigen::MatrixXd FullRank::covariance() const {
  const Eigen::MatrixXd L = cholesky();
  return L * L.transpose();
}

}  // namespace bvi::vi
