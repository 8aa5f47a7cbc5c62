// Gauss–Hermite rules against closed forms: E z^{2k} = (2k-1)!! for 2k < 2n, E cos(t z) = e^{-t²/2},
// and a few nodes and weights against numpy.polynomial.hermite.hermgauss (an independent
// implementation: Golub–Welsch with Newton polishing).
#include <doctest/doctest.h>

#include <cmath>

#include "inference/quadrature/gauss_hermite.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_gauss_hermite {

using bvi::quadrature::gauss_hermite;

TEST_CASE("Gauss-Hermite rules integrate even moments exactly up to degree 2n - 1") {
  for (int n : {1, 2, 3, 5, 8, 16, 24, 32, 64, 96, 128, 192, 200, 256, 384, 512}) {
    const auto& r = gauss_hermite(n);
    REQUIRE(r.size() == n);
    CHECK(r.weights.sum() == doctest::Approx(1.0).epsilon(1e-15));
    for (int i = 0; i + 1 < n; ++i) CHECK(r.nodes[i] < r.nodes[i + 1]);
    for (int i = 0; i < n; ++i) CHECK(r.nodes[i] == doctest::Approx(-r.nodes[n - 1 - i]).epsilon(1e-14));
    double double_factorial = 1.0;  // (2k-1)!!
    for (int k = 0; 2 * k < 2 * n && k <= 12; ++k) {
      if (k > 0) double_factorial *= 2.0 * k - 1.0;
      const double moment = (r.weights * r.nodes.pow(2.0 * k)).sum();
      INFO("n = " << n << ", k = " << k);
      CHECK(moment == doctest::Approx(double_factorial).epsilon(1e-12));
      const double odd = (r.weights * r.nodes.pow(2.0 * k + 1)).sum();
      CHECK(std::abs(odd) < 1e-12 * double_factorial * (2 * k + 1));
    }
  }
}

TEST_CASE("Gauss-Hermite converges to E cos(t z) = exp(-t^2/2) for an entire integrand") {
  // Also the large rules the quadrature tiers use (192, 256): their nodes were once repeated.
  for (int n : {64, 192, 256, 512}) {
    for (double t : {0.5, 1.0, 2.0, 4.0}) {
      INFO("n = " << n << ", t = " << t);
      const auto& r = gauss_hermite(n);
      CHECK((r.weights * (t * r.nodes).cos()).sum() == doctest::Approx(std::exp(-0.5 * t * t)).epsilon(1e-13));
    }
  }
}

TEST_CASE("Gauss-Hermite nodes and weights match numpy's hermgauss") {
  const auto& r = gauss_hermite(20);
  // numpy.polynomial.hermite.hermgauss(20), scaled: z = sqrt(2) x, w = weight / sqrt(pi).
  CHECK(r.nodes[19] == doctest::Approx(7.6190485416797591).epsilon(1e-14));
  CHECK(r.nodes[18] == doctest::Approx(6.5105901570136556).epsilon(1e-14));
  CHECK(r.weights[19] == doctest::Approx(1.2578006724379296e-13).epsilon(1e-11));
  CHECK(r.weights[17] == doctest::Approx(6.1274902599829621e-08).epsilon(1e-11));
  CHECK(gauss_hermite(1).nodes[0] == 0.0);
  CHECK(gauss_hermite(1).weights[0] == 1.0);
  CHECK_THROWS(gauss_hermite(0));
  CHECK_THROWS(gauss_hermite(513));
}

}  // namespace test_gauss_hermite
