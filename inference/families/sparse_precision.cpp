#include "inference/families/sparse_precision.hpp"

#include <stdexcept>

namespace bvi::vi {

SparsePrecision::SparsePrecision(std::shared_ptr<const BlockPattern> pattern)
    : Family(pattern->dim(), pattern->dim() + pattern->size()), pattern_(std::move(pattern)) {
  set_initial_scale(1.0);
}

const std::shared_ptr<SparseFactor>& SparsePrecision::shared_factor() const {
  if (!factor_) factor_ = std::make_shared<SparseFactor>(pattern_);
  return factor_;
}

SparseFactor& SparsePrecision::factor() const {
  shared_factor();
  if (!factor_->factorize(params_.tail(params_.size() - dim_)))
    throw std::runtime_error("sparse family: the precision is not positive definite");
  return *factor_;
}

void SparsePrecision::transform(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                                Eigen::Ref<Eigen::MatrixXd> zeta) const {
  // Rows are draws: zeta_s = mu + Sigma^{1/2} eps_s, all S draws in one solve.
  factor().draws(eps, params_.head(dim_), zeta);
}

void SparsePrecision::elbo_gradient(const Eigen::Ref<const Eigen::MatrixXd>&, const Eigen::Ref<const Eigen::MatrixXd>&,
                                    Eigen::VectorXd&) const {
  throw std::logic_error("the sparse family is fitted by the exact method only");
}

double SparsePrecision::log_det_scale() const { return -0.5 * factor().log_det(); }

Eigen::VectorXd SparsePrecision::marginal_sd() const {
  Eigen::VectorXd sigma;
  factor().inverse_on_pattern(sigma);
  Eigen::VectorXd sd(dim_);
  for (Index j = 0; j < dim_; ++j) sd[j] = std::sqrt(sigma[pattern_->diagonal()[static_cast<std::size_t>(j)]]);
  return sd;
}

Eigen::MatrixXd SparsePrecision::covariance() const {
  Eigen::MatrixXd S = Eigen::MatrixXd::Identity(dim_, dim_);
  factor().scale_draws(S);
  return S * S.transpose();
}

void SparsePrecision::set_initial_scale(double s) {
  precision() = pattern_->diagonal_matrix(Eigen::VectorXd::Constant(dim_, 1.0 / (s * s)));
}

}  // namespace bvi::vi
