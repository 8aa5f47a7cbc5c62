#include "inference/quadrature/gauss_hermite.hpp"

#include <Eigen/Eigenvalues>
#include <array>
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace bvi::quadrature {

namespace {

constexpr int kMaxPoints = 512;

// The orthonormal Hermite polynomials for the weight e^{-x²}, h_0 = π^{-1/4},
//   h_j(x) = x √(2/j) h_{j-1}(x) - √((j-1)/j) h_{j-2}(x),
// stay of order one where plain H_n(x) overflows; h_n'(x) = √(2n) h_{n-1}(x). Returns h_n(x) and
// sets *previous to h_{n-1}(x).
double orthonormal_hermite(int n, double x, double* previous) {
  double p1 = std::pow(M_PI, -0.25), p2 = 0.0;
  for (int j = 1; j <= n; ++j) {
    const double p3 = p2;
    p2 = p1;
    p1 = x * std::sqrt(2.0 / j) * p2 - std::sqrt((j - 1.0) / j) * p3;
  }
  *previous = p2;
  return p1;
}

}  // namespace

GaussHermiteRule compute_gauss_hermite(int n) {
  if (n < 1 || n > kMaxPoints)
    throw std::invalid_argument("gauss_hermite: n = " + std::to_string(n) + " is outside [1, 512]");
  // Newton's method on h_n for the roots x_1 > x_2 > ... of the physicists' rule, started from the
  // eigenvalues of the Jacobi matrix (zero diagonal, off-diagonal sqrt(k / 2); Golub and Welsch),
  // which are the roots to about 1e-15 sqrt(2n) whatever n. The classical starting values
  // (Airy asymptotics for the largest roots, extrapolation from the two found before) sent
  // Newton to a root already found from n = 200 on, and the rule had repeated nodes. The
  // weights are 2 / h_n'(x)^2, from the polished roots.
  Eigen::ArrayXd x(n), w(n);
  const int half = (n + 1) / 2;
  Eigen::VectorXd start = Eigen::VectorXd::Zero(n);  // descending
  if (n > 1) {
    Eigen::VectorXd sub(n - 1);
    for (int k = 1; k < n; ++k) sub[k - 1] = std::sqrt(0.5 * k);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig;
    eig.computeFromTridiagonal(Eigen::VectorXd::Zero(n), sub, Eigen::EigenvaluesOnly);
    start = eig.eigenvalues().reverse();
  }
  double z = 0.0;
  for (int i = 0; i < half; ++i) {
    z = start[i];
    double derivative = 0.0;
    for (int it = 0; it < 100; ++it) {
      double previous;
      const double h = orthonormal_hermite(n, z, &previous);
      derivative = std::sqrt(2.0 * n) * previous;
      const double step = h / derivative;
      z -= step;
      if (std::abs(step) <= 1e-15 * std::max(1.0, std::abs(z))) break;
    }
    double previous;
    orthonormal_hermite(n, z, &previous);
    derivative = std::sqrt(2.0 * n) * previous;
    if (i > 0 && !(z < x[i - 1]))
      throw std::logic_error("gauss_hermite: Newton's method found a root twice for n = " + std::to_string(n));
    x[i] = z;
    x[n - 1 - i] = -z;
    w[i] = w[n - 1 - i] = 2.0 / (derivative * derivative);
  }
  if (n % 2 == 1) x[n / 2] = 0.0;  // exactly, not to within Newton's tolerance
  GaussHermiteRule rule;
  rule.nodes = (std::sqrt(2.0) * x).reverse();
  rule.weights = (w / std::sqrt(M_PI)).reverse();
  rule.weights /= rule.weights.sum();  // Σ w = 1 to the last bit, so E[1] = 1 exactly
  return rule;
}

const GaussHermiteRule& gauss_hermite(int n) {
  if (n < 1 || n > kMaxPoints)
    throw std::invalid_argument("gauss_hermite: n = " + std::to_string(n) + " is outside [1, 512]");
  static std::array<std::unique_ptr<const GaussHermiteRule>, kMaxPoints + 1> cache;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (!cache[n]) cache[n] = std::make_unique<const GaussHermiteRule>(compute_gauss_hermite(n));
  return *cache[n];
}

}  // namespace bvi::quadrature
