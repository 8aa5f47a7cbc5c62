#include "inference/families/meanfield.hpp"

namespace bvi::vi {

void MeanField::transform(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                          Eigen::Ref<Eigen::MatrixXd> zeta) const {
  const Eigen::ArrayXd sigma = omega().array().exp();
  for (Index j = 0; j < dim_; ++j) zeta.col(j).array() = params_[j] + sigma[j] * eps.col(j).array();
}

void MeanField::elbo_gradient(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                              const Eigen::Ref<const Eigen::MatrixXd>& grad_logp,
                              Eigen::VectorXd& grad) const {
  const double inv_s = 1.0 / static_cast<double>(eps.rows());
  grad.resize(2 * dim_);
  for (Index j = 0; j < dim_; ++j) {
    grad[j] = grad_logp.col(j).sum() * inv_s;
    grad[dim_ + j] = grad_logp.col(j).dot(eps.col(j)) * inv_s * std::exp(params_[dim_ + j]) + 1.0;
  }
}

}  // namespace bvi::vi
