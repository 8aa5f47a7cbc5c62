#include "inference/exact/expected_log_density.hpp"

#include <cmath>

namespace bvi::vi {

double GaussianQ::entropy() const {
  constexpr double kLog2Pi = 1.83787706640934548356;
  const auto P = static_cast<double>(dim());
  const double log_det = dense      ? chol.diagonal().array().log().sum()
                         : sparse() ? -0.5 * log_det_prec
                                    : sd.array().log().sum();
  return 0.5 * P * (1.0 + kLog2Pi) + log_det;
}

void ExpectationGradient::reset(Index P, bool dense, bool structured) {
  value = 0.0;
  d_mean.setZero(P);
  d_sparse.resize(0);
  if (structured)
    d_parent.setZero(P);
  else
    d_parent.resize(0);
  if (dense) {
    d_cov.setZero(P, P);
    d_var.resize(0);
  } else {
    d_var.setZero(P);
    d_cov.resize(0, 0);
  }
}

void ExpectationGradient::reset_sparse(const BlockPattern& pattern) {
  // d_sparse keeps its storage (millions of values: no allocation per evaluation).
  Eigen::VectorXd keep = std::move(d_sparse);
  reset(pattern.dim(), false, false);
  d_sparse = std::move(keep);
  d_sparse.setZero(pattern.size());
}

bool GaussianQ::set_precision(Eigen::VectorXd lambda) {
  if (!factor->factorize(lambda)) return false;
  prec = std::move(lambda);
  factor->inverse_on_pattern(sigma);
  log_det_prec = factor->log_det();
  return true;
}

}  // namespace bvi::vi
