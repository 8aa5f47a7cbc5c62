// The negative binomial's phi-dependent constant and its derivatives (inference/math/
// rising_factorial.hpp) and trigamma, against mpmath at 40 digits (values written here, printed
// by mpmath.loggamma, digamma and polygamma(1, .)): the three branches of log_rising_factorial (the
// sums for y <= 64, Stirling's differences for phi > 1000 y, the special functions otherwise), at
// phi far above y where the lgamma difference would cancel, and tiny phi.
#include <doctest/doctest.h>

#include <algorithm>
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
    // phi > 1000 y for a large count: Stirling's differences, not y steps of the sums
    {10000.0, 20000000.0, 168114.92764868259683, 0.00049987505414480124568, -2.4987507495939717548e-11},
    {10000.0, 10000000000000.0, 299336.06209422543892, 9.9999999950005000033e-10, -9.99999999000100001e-23},
    {7660000.0, 15320000000.0, 179647490.19030600355, 0.00049987504166735829673, -3.262076533747675252e-14},
    {7660000.0, 7660000000000000.0, 280162878.98438999807, 9.9999999950000006561e-10, -1.3054830274151437749e-25},
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

// The whole constant log Gamma(y + phi) - log Gamma(phi) - log y! (math::log_nb_coefficient),
// against mpmath.loggamma at 50 digits: for a large count and phi <= y it must be exact to
// rounding of its own size, where R - log y! left eps y log y (2.6e-6 at y = 5.85e8, the largest
// count of simulate's 10^5 x 20 data, which stalled the exact optimizer's line search).
struct Coefficient {
  double y, phi, value;
};
const Coefficient kCoefficient[] = {
    {3.0, 2.0, 1.3862943611198906188},  // the sums' branch: log(2 3 4 / 3!)
    {65.0, 0.01, -8.7321996204114006658},
    {65.0, 0.7, -1.5147971419939352875},
    {65.0, 2.0, 4.1896547420264255449},
    {65.0, 64.5, 86.405024111211609707},
    {65.0, 65.0, 86.754504656401258597},
    {100.0, 0.01, -9.1586479430112323488},
    {100.0, 2.0, 4.6151205168412594509},
    {100.0, 64.5, 106.47059824049197285},
    {100.0, 100.0, 135.0600889007185479},
    {4097.0, 0.7, -2.7562959578873108411},
    {4097.0, 1000.0, 2517.5328273499375596},
    {4097.0, 4097.0, 5674.2234497358044972},
    {7660000.0, 0.01, -20.292487194987842106},
    {7660000.0, 2.0, 15.851522672265068386},
    {7660000.0, 1000.0, 9930.5158020071284003},
    {7660000.0, 7660000.0, 10619005.614904951479},
    {585289610.0, 0.01, -24.585221047148746057},
    {585289610.0, 0.7, -6.31715244946811644},
    {585289610.0, 2.0, 20.187617344232057899},
    {585289610.0, 64.5, 1078.8268999133229851},
    {585289610.0, 585289610.0, 811383674.60573914858},
    {1e12, 0.01, -31.954190782811289372},
    {1e12, 2.0, 27.631021115929548208},
    {1e12, 1000.0, 21698.169672102938448},
    {1e12, 1e12, 1386294361104.8095962},
};

TEST_CASE("log_nb_coefficient: log Gamma(y + phi) - log Gamma(phi) - log y! to rounding of itself, not of y log y") {
  for (const Coefficient& c : kCoefficient) {
    INFO("y = " << c.y << ", phi = " << c.phi);
    const math::RisingFactorial got = math::log_nb_coefficient(c.y, c.phi, true);
    CHECK(std::abs(got.value - c.value) <= 2e-14 * std::max(1.0, std::abs(c.value)));
    // The derivatives in phi are log_rising_factorial's: log y! does not depend on phi.
    const math::RisingFactorial r = math::log_rising_factorial(c.y, c.phi, true);
    CHECK(got.d1 == r.d1);
    CHECK(got.d2 == r.d2);
    CHECK(math::log_nb_coefficient(c.y, c.phi, false).value == got.value);
  }
  CHECK(math::log_nb_coefficient(0.0, 3.0, true).value == 0.0);
}

}  // namespace test_rising_factorial
