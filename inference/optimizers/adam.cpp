#include "inference/optimizers/adam.hpp"

#include <cmath>
#include <stdexcept>

namespace bvi::vi {

void Adam::step(Eigen::VectorXd& params, const Eigen::VectorXd& grad, long t) {
  if (m_.size() != params.size()) {
    m_.setZero(params.size());
    v_.setZero(params.size());
  }
  m_ = b1_ * m_ + (1 - b1_) * grad;
  v_ = b2_ * v_ + (1 - b2_) * grad.cwiseAbs2();
  const double td = static_cast<double>(t);
  const double lr_t = lr_ / std::sqrt(1.0 + decay_ * td);
  const double c1 = 1.0 - std::pow(b1_, td), c2 = 1.0 - std::pow(b2_, td);
  params.array() += lr_t * (m_.array() / c1) / ((v_.array() / c2).sqrt() + eps_);
}

std::vector<double> Adam::state() const {
  std::vector<double> s(m_.data(), m_.data() + m_.size());
  s.insert(s.end(), v_.data(), v_.data() + v_.size());
  return s;
}

void Adam::set_state(const std::vector<double>& s) {
  if (s.size() % 2) throw std::invalid_argument("adam: state of odd length");
  const auto n = static_cast<Eigen::Index>(s.size() / 2);
  m_ = Eigen::Map<const Eigen::VectorXd>(s.data(), n);
  v_ = Eigen::Map<const Eigen::VectorXd>(s.data() + n, n);
}

}  // namespace bvi::vi
