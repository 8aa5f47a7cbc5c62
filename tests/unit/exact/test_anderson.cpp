// Anderson acceleration on a linear fixed-point iteration x <- A x + b with a slow mode (rate
// 0.95): the plain iteration needs hundreds of steps for 1e-10, the accelerated one a handful
// more than the dimension; and its state survives a round trip exactly.
#include <doctest/doctest.h>

#include <Eigen/Dense>

#include "inference/exact/anderson.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_anderson {

using namespace bvi;

namespace {

struct Linear {
  Eigen::MatrixXd A;
  Eigen::VectorXd b, solution;
  explicit Linear(int n) : A(n, n), b(n) {
    Eigen::MatrixXd Q = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) Q(i, j) = std::sin(1.0 + 0.7 * i + 0.1 * j + 1.3 * i * j);
    Q = Eigen::HouseholderQR<Eigen::MatrixXd>(Q).householderQ();
    Eigen::VectorXd rates = Eigen::VectorXd::LinSpaced(n, -0.5, 0.95);
    A = Q * rates.asDiagonal() * Q.transpose();
    for (int i = 0; i < n; ++i) b[i] = std::cos(2.0 + i);
    solution = (Eigen::MatrixXd::Identity(n, n) - A).lu().solve(b);
  }
  Eigen::VectorXd G(const Eigen::VectorXd& x) const { return A * x + b; }
};

int iterations_to(const Linear& f, bool accelerate, double tol) {
  vi::Anderson aa(5);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(f.b.size());
  for (int k = 1; k <= 2000; ++k) {
    const Eigen::VectorXd r = f.G(x) - x;
    x = accelerate ? aa.next(x, r) : Eigen::VectorXd(x + r);
    if ((x - f.solution).norm() < tol) return k;
  }
  return 2000;
}

}  // namespace

TEST_CASE("Anderson acceleration converges where the plain fixed point crawls") {
  const Linear f(6);
  const int plain = iterations_to(f, false, 1e-10), fast = iterations_to(f, true, 1e-10);
  INFO("plain " << plain << ", accelerated " << fast);
  CHECK(plain > 300);
  CHECK(fast < 30);
}

TEST_CASE("Anderson's history survives a checkpoint round trip bit for bit") {
  const Linear f(4);
  vi::Anderson a(3), b(3);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(4);
  for (int k = 0; k < 5; ++k) x = a.next(x, f.G(x) - x);
  b.set_state(a.state());
  const Eigen::VectorXd next_a = a.next(x, f.G(x) - x), next_b = b.next(x, f.G(x) - x);
  CHECK(next_a == next_b);
  CHECK_THROWS(b.set_state({3.0, 1.0, 0.5}));
}

}  // namespace test_anderson
