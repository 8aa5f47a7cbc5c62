#pragma once
// The phi-dependent part of the negative binomial's normalizing constant, for a count y and a
// shape phi > 0, with its first two derivatives in phi:
//   R(y, phi)  = log Gamma(y + phi) - log Gamma(phi) = sum_{j<y} log(phi + j)   (log rising factorial)
//   R1(y, phi) = psi(y + phi) - psi(phi)             = sum_{j<y} 1 / (phi + j)
//   R2(y, phi) = psi1(y + phi) - psi1(phi)           = -sum_{j<y} 1 / (phi + j)^2
// The lgamma difference loses digits to cancellation once phi >> y (both terms near phi log phi
// for an answer near y log phi), and the digamma and trigamma differences likewise; the sums are
// exact to rounding whatever phi is. So: the sums for y <= kDirect (the usual counts) and for
// phi > 1000 y (where the cancellation would cost 3 digits or more), the special functions
// otherwise (there phi <= 1000 y, so the cancellation costs at most log10(1 + phi / y) < 3 digits).
#include <cmath>

#include "inference/ad/math/special_functions.hpp"

namespace bvi::math {

// The trigamma function psi1(x) = d^2/dx^2 log Gamma(x) for x > 0, as scipy.special.polygamma(1, x):
// psi1(x) = psi1(x + n) + sum_{k<n} 1/(x + k)^2 up to x + n >= 10, then the asymptotic series
//   psi1(x) ~ 1/x + 1/(2x^2) + sum_k B_2k / x^(2k+1)
// to x^-15 (the next term, 3617/510 x^-17, is below 1e-16 relative at x = 10).
inline double trigamma(double x) {
  if (!(x > 0.0)) return std::nan("");
  double acc = 0.0;
  while (x < 10.0) {
    acc += 1.0 / (x * x);
    x += 1.0;
  }
  const double r = 1.0 / x, r2 = r * r;
  // B2 = 1/6, B4 = -1/30, B6 = 1/42, B8 = -1/30, B10 = 5/66, B12 = -691/2730, B14 = 7/6
  const double tail =
      r2 * r *
      (1.0 / 6 -
       r2 * (1.0 / 30 -
             r2 * (1.0 / 42 - r2 * (1.0 / 30 - r2 * (5.0 / 66 - r2 * (691.0 / 2730 - r2 * (7.0 / 6)))))));
  return acc + (r + 0.5 * r2 + tail);
}

struct RisingFactorial {
  double value = 0.0, d1 = 0.0, d2 = 0.0;  // R, R1, R2 above
};

inline constexpr double kRisingDirect = 64;

// R, and with `derivatives` R1 and R2, for an integer y >= 0 and phi > 0.
inline RisingFactorial log_rising_factorial(double y, double phi, bool derivatives) {
  RisingFactorial r;
  if (y == 0.0) return r;
  if (y <= kRisingDirect || phi > 1000.0 * y) {
    // The product in pieces: a factor is below 1e100 for any phi this is called with in practice
    // (log phi < 230), and the running product is logged before it passes 1e200.
    double p = 1.0, acc = 0.0;
    for (double j = 0.0; j < y; j += 1.0) {
      const double t = phi + j;
      p *= t;
      if (p > 1e200) {
        acc += std::log(p);
        p = 1.0;
      }
      if (derivatives) {
        const double inv = 1.0 / t;
        r.d1 += inv;
        r.d2 -= inv * inv;
      }
    }
    r.value = acc + std::log(p);
    return r;
  }
  r.value = ad::math::log_gamma(y + phi) - ad::math::log_gamma(phi);
  if (derivatives) {
    r.d1 = ad::math::digamma(y + phi) - ad::math::digamma(phi);
    r.d2 = trigamma(y + phi) - trigamma(phi);
  }
  return r;
}

}  // namespace bvi::math
