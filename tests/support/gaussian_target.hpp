#pragma once
// A Gaussian log density log p(z) = c - (z - m)^T A (z - m) / 2 with closed-form variational
// optima: meanfield mu = m, sigma_i = 1/sqrt(A_ii); fullrank mu = m, Sigma = A^-1; and the
// fullrank ELBO at its optimum equals log Z = c + P/2 log(2 pi) - log|A|/2.
#include <Eigen/Dense>
#include <cmath>

#include "inference/log_density.hpp"

namespace bvi::test {

class GaussianTarget final : public vi::LogDensity {
 public:
  GaussianTarget(Eigen::VectorXd m, Eigen::MatrixXd a, double c = 0.0)
      : m_(std::move(m)), a_(std::move(a)), c_(c) {}
  vi::Index dim() const override { return m_.size(); }
  void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                   Eigen::MatrixXd* grad) override {
    const Eigen::MatrixXd d = theta.rowwise() - m_.transpose();
    const Eigen::MatrixXd ad = d * a_;  // rows: (A d_s)^T, A symmetric
    lp = (c_ - 0.5 * (ad.array() * d.array()).rowwise().sum()).matrix();
    if (grad) *grad = -ad;
    ++evaluations;
  }
  double log_z() const {
    return c_ + 0.5 * static_cast<double>(dim()) * std::log(2 * M_PI) - 0.5 * std::log(a_.determinant());
  }
  const Eigen::VectorXd& m() const { return m_; }
  const Eigen::MatrixXd& a() const { return a_; }
  long evaluations = 0;

 private:
  Eigen::VectorXd m_;
  Eigen::MatrixXd a_;
  double c_;
};

// A correlated, well-conditioned precision matrix of size p.
inline Eigen::MatrixXd test_precision(int p, double rho = 0.5) {
  Eigen::MatrixXd cov(p, p);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j)
      cov(i, j) = std::pow(rho, std::abs(i - j)) * (0.5 + 0.1 * i) * (0.5 + 0.1 * j);
  return cov.inverse();
}

}  // namespace bvi::test
