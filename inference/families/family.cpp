#include "inference/families/family.hpp"

#include <cmath>
#include <stdexcept>

#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"

namespace bvi::vi {

namespace {
constexpr double kLog2Pi = 1.8378770664093454836;
}

double Family::entropy() const {
  return 0.5 * static_cast<double>(dim_) * (1.0 + kLog2Pi) + log_det_scale();
}

void Family::log_density_of_draws(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                                  Eigen::Ref<Eigen::VectorXd> out) const {
  const double c = -0.5 * static_cast<double>(dim_) * kLog2Pi - log_det_scale();
  out = (c - 0.5 * eps.rowwise().squaredNorm().array()).matrix();
}

std::unique_ptr<Family> make_family(const std::string& name, Index dim) {
  if (name == "meanfield") return std::make_unique<MeanField>(dim);
  if (name == "fullrank") return std::make_unique<FullRank>(dim);
  throw std::invalid_argument("unknown variational family '" + name + "'");
}

}  // namespace bvi::vi
