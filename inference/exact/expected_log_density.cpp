#include "inference/exact/expected_log_density.hpp"

#include <cmath>

namespace bvi::vi {

double GaussianQ::entropy() const {
  constexpr double kLog2Pi = 1.83787706640934548356;
  const auto P = static_cast<double>(dim());
  const double log_det = dense ? chol.diagonal().array().log().sum() : sd.array().log().sum();
  return 0.5 * P * (1.0 + kLog2Pi) + log_det;
}

void ExpectationGradient::reset(Index P, bool dense, bool structured) {
  value = 0.0;
  d_mean.setZero(P);
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

}  // namespace bvi::vi
