#include "inference/families/structured.hpp"

#include <cmath>
#include <stdexcept>

namespace bvi::vi {

Structured::Structured(Index dim, std::vector<Index> parent) : Family(dim, 3 * dim), parent_(std::move(parent)) {
  if (static_cast<Index>(parent_.size()) != dim) throw std::invalid_argument("structured family: one parent per coordinate");
  for (Index j = 0; j < dim; ++j) {
    const Index p = parent_[static_cast<std::size_t>(j)];
    if (p >= dim || p == j || (p >= 0 && parent_[static_cast<std::size_t>(p)] >= 0))
      throw std::invalid_argument("structured family: a parent must be another coordinate without a parent");
  }
}

Eigen::VectorXd Structured::conditional_sd() const {
  Eigen::VectorXd sd(dim_);
  for (Index j = 0; j < dim_; ++j) sd[j] = std::exp(params_[dim_ + j]);
  return sd;
}

void Structured::transform(const Eigen::Ref<const Eigen::MatrixXd>& eps, Eigen::Ref<Eigen::MatrixXd> zeta) const {
  const Eigen::VectorXd sigma = conditional_sd();
  for (Index j = 0; j < dim_; ++j) zeta.col(j).array() = params_[j] + sigma[j] * eps.col(j).array();
  for (Index j = 0; j < dim_; ++j) {
    const Index p = parent_[static_cast<std::size_t>(j)];
    if (p >= 0) zeta.col(j).array() += (params_[2 * dim_ + j] * sigma[p]) * eps.col(p).array();
  }
}

void Structured::elbo_gradient(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                               const Eigen::Ref<const Eigen::MatrixXd>& grad_logp, Eigen::VectorXd& grad) const {
  const double inv_s = 1.0 / static_cast<double>(eps.rows());
  const Eigen::VectorXd sigma = conditional_sd();
  grad.setZero(3 * dim_);
  for (Index j = 0; j < dim_; ++j) {
    grad[j] = grad_logp.col(j).sum() * inv_s;
    grad[dim_ + j] += grad_logp.col(j).dot(eps.col(j)) * inv_s * sigma[j] + 1.0;
    const Index p = parent_[static_cast<std::size_t>(j)];
    if (p < 0) continue;
    // zeta_j's share b_j sigma_p eps_p: through b_j and through omega_p.
    const double ge = grad_logp.col(j).dot(eps.col(p)) * inv_s;
    grad[2 * dim_ + j] = ge * sigma[p];
    grad[dim_ + p] += ge * params_[2 * dim_ + j] * sigma[p];
  }
}

Eigen::VectorXd Structured::marginal_sd() const {
  const Eigen::VectorXd sigma = conditional_sd();
  Eigen::VectorXd sd = sigma;
  for (Index j = 0; j < dim_; ++j) {
    const Index p = parent_[static_cast<std::size_t>(j)];
    if (p >= 0) sd[j] = std::sqrt(sigma[j] * sigma[j] + std::pow(params_[2 * dim_ + j] * sigma[p], 2));
  }
  return sd;
}

Eigen::MatrixXd Structured::covariance() const {
  const Eigen::VectorXd sigma = conditional_sd();
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(dim_, dim_);  // zeta - mu = C eps
  for (Index j = 0; j < dim_; ++j) {
    C(j, j) = sigma[j];
    const Index p = parent_[static_cast<std::size_t>(j)];
    if (p >= 0) C(j, p) = params_[2 * dim_ + j] * sigma[p];
  }
  return C * C.transpose();
}

void Structured::set_initial_scale(double s) {
  omega().setConstant(std::log(s));
  b().setZero();
}

}  // namespace bvi::vi
