// The counter-based normal stream: deterministic, prefix-stable, separated by purpose, step and
// attempt, and distributed as N(0, 1) (moments and a Kolmogorov-Smirnov bound).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "inference/rng/normal_stream.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_normal_stream {

using namespace bvi;
using rng::Purpose;

TEST_CASE("a draw depends only on its coordinates in the stream") {
  Eigen::MatrixXd a(10, 7), b(3, 7), c(4, 7);
  rng::standard_normal(42, Purpose::gradient, 5, 0, a);
  rng::standard_normal(42, Purpose::gradient, 5, 0, b);
  rng::standard_normal(42, Purpose::gradient, 5, 0, 6, c);
  CHECK(b == a.topRows(3));     // a prefix of a larger request
  CHECK(c == a.bottomRows(4));  // a slice from an offset
  Eigen::MatrixXd d(10, 7);
  rng::standard_normal(42, Purpose::gradient, 5, 0, d);
  CHECK(d == a);
}

TEST_CASE("seed, purpose, step and attempt each change every value") {
  Eigen::MatrixXd base(8, 5), other(8, 5);
  rng::standard_normal(1, Purpose::gradient, 1, 0, base);
  auto all_differ = [&](const Eigen::MatrixXd& m) { return (m.array() != base.array()).all(); };
  rng::standard_normal(2, Purpose::gradient, 1, 0, other);
  CHECK(all_differ(other));
  rng::standard_normal(1, Purpose::elbo, 1, 0, other);
  CHECK(all_differ(other));
  rng::standard_normal(1, Purpose::gradient, 2, 0, other);
  CHECK(all_differ(other));
  rng::standard_normal(1, Purpose::gradient, 1, 1, other);
  CHECK(all_differ(other));
}

TEST_CASE("the draws are standard normal") {
  const Eigen::Index S = 20000, P = 5;
  Eigen::MatrixXd z(S, P);
  rng::standard_normal(7, Purpose::output, 0, 0, z);
  const double n = static_cast<double>(z.size());
  const double mean = z.mean();
  const double var = (z.array() - mean).square().sum() / (n - 1);
  const double skew = ((z.array() - mean).cube().sum() / n) / std::pow(var, 1.5);
  const double kurt = ((z.array() - mean).square().square().sum() / n) / (var * var);
  // Standard errors at n = 1e5: mean 0.0032, var 0.0045, skew 0.0077, kurtosis 0.0155; 5 sigma.
  CHECK(std::abs(mean) < 0.016);
  CHECK(std::abs(var - 1) < 0.023);
  CHECK(std::abs(skew) < 0.04);
  CHECK(std::abs(kurt - 3) < 0.08);
  // Kolmogorov-Smirnov against Phi: at n = 1e5 the 0.1 % critical value is 1.95 / sqrt(n).
  std::vector<double> v(z.data(), z.data() + z.size());
  std::sort(v.begin(), v.end());
  double d = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double cdf = 0.5 * std::erfc(-v[i] / std::sqrt(2.0));
    d = std::max({d, std::abs(cdf - i / n), std::abs(cdf - (i + 1) / n)});
  }
  CHECK(d < 1.95 / std::sqrt(n));
  // Coordinates of one draw are uncorrelated (they share a Philox block).
  const double corr = ((z.col(0).array() - z.col(0).mean()) * (z.col(1).array() - z.col(1).mean())).mean();
  CHECK(std::abs(corr) < 5 / std::sqrt(double(S)));
}

}  // namespace test_normal_stream
