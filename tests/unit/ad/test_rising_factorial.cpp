// The negative binomial's phi-dependent constant and its derivatives (inference/math/
// rising_factorial.hpp) and trigamma, against mpmath at 40 digits (values written here, printed
// by mpmath.loggamma, digamma and polygamma(1, .)): both branches of log_rising_factorial (the
// sums for y <= 64 or phi > 1000 y, the special functions otherwise), at phi far above y where
// the lgamma difference would cancel, and tiny phi.
#include <doctest/doctest.h>

#include <cmath>

#include "inference/math/rising_factorial.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_rising_factorial {

using namespace bvi;

namespace {
struct Trigamma {
  double x, want;
};
const Trigamma kTrigamma[] = {
    {0.001, 1000001.6425331958273},        {0.1, 101.4332991507927477},
    {0.5, 4.9348022005446793094},          {1.0, 1.6449340668482264365},
    {1.4616, 0.96770071146508354512},      {2.5, 0.49035775610023486497},
    {9.99, 0.10527695014824178439},        {10.0, 0.10516633568168574612},
    {37.5, 0.027025382266785013993},       {1000.0, 0.0010005001666666333334},
    {1000000.0, 1.0000005000001666667e-6},
};
struct Rising {
  double y, phi, value, d1, d2;
};
const Rising kRising[] = {
    {1.0, 0.5, -0.69314718055994530942, 2.0, -4.0},
    {3.0, 2.0, 3.1780538303479456196, 1.0833333333333333333, -0.42361111111111111111},
    {64.0, 0.01, 196.45134781097152296, 104.71209316133559739, -10001.605468301709244},
    {65.0, 0.01, 200.61038713212543498, 104.72771572031075752, -10001.605712366058177},
    {100.0, 7.5, 386.37687017775421438, 2.7260749894882286424, -0.13327017032692411012},
    {300.0, 10000.0, 2767.5429950369229504, 0.029560258600060756679, -2.9129083938206889278e-6},
    {5.0, 100000000.0, 92.103403819761825861, 4.999999900000003e-8, -4.999999800000009e-16},
    {2000.0, 3.0, 13221.03450762770571, 6.6793673542347204403, -0.39443469107832948051},
    {70.0, 1000000.0, 967.08815400155363128, 0.000069997585111889168099, -6.9995170335661672721e-11},
};
}  // namespace

TEST_CASE("trigamma matches mpmath's polygamma(1, x)") {
  for (const Trigamma& t : kTrigamma) {
    INFO("x = " << t.x);
    CHECK(math::trigamma(t.x) == doctest::Approx(t.want).epsilon(4e-15));
  }
  CHECK(std::isnan(math::trigamma(0.0)));
  CHECK(std::isnan(math::trigamma(-1.5)));
}

TEST_CASE("log_rising_factorial: log Gamma(y + phi) - log Gamma(phi) and its phi derivatives match mpmath") {
  for (const Rising& r : kRising) {
    INFO("y = " << r.y << ", phi = " << r.phi);
    const math::RisingFactorial got = math::log_rising_factorial(r.y, r.phi, true);
    CHECK(got.value == doctest::Approx(r.value).epsilon(1e-14));
    CHECK(got.d1 == doctest::Approx(r.d1).epsilon(1e-13));
    CHECK(got.d2 == doctest::Approx(r.d2).epsilon(1e-13));
    CHECK(math::log_rising_factorial(r.y, r.phi, false).value == got.value);
  }
  const math::RisingFactorial zero = math::log_rising_factorial(0.0, 3.0, true);
  CHECK(zero.value == 0.0);
  CHECK(zero.d1 == 0.0);
  CHECK(zero.d2 == 0.0);
}

}  // namespace test_rising_factorial
