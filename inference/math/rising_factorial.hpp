#pragma once
// The phi-dependent part of the negative binomial's normalizing constant, for a count y and a
// shape phi > 0, with its first two derivatives in phi:
//   R(y, phi)  = log Gamma(y + phi) - log Gamma(phi) = sum_{j<y} log(phi + j)   (log rising factorial)
//   R1(y, phi) = psi(y + phi) - psi(phi)             = sum_{j<y} 1 / (phi + j)
//   R2(y, phi) = psi1(y + phi) - psi1(phi)           = -sum_{j<y} 1 / (phi + j)^2
// The lgamma difference loses digits to cancellation once phi >> y (both terms near phi log phi
// for an answer near y log phi), and the digamma and trigamma differences likewise; the sums are
// exact to rounding whatever phi is. So: the sums for y <= kDirect (the usual counts), Stirling's
// series taken as differences for phi > 1000 y (where the cancellation would cost 3 digits or
// more, and the sums y steps), the special functions otherwise (there phi <= 1000 y, so the
// cancellation costs at most log10(1 + phi / y) < 3 digits).
#include <cmath>

#include "inference/ad/math/special_functions.hpp"
#include "inference/math/log_factorial.hpp"

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

// log Gamma(x + delta + 1) - log Gamma(x + 1) for x > 64 and -1 < delta, by Stirling's
// series taken as a difference: with a = x + 1 and b = a + delta,
//   (b - 1/2) log b - (a - 1/2) log a - delta = delta log a + (b - 1/2) log1p(delta / a) - delta,
// plus S(b) - S(a), S(t) = 1/(12 t) - 1/(360 t^3) + 1/(1260 t^5) - 1/(1680 t^7) (the next term,
// 1/(1188 t^9), is below 1e-19 at t = 65). Every term is of the answer's size (delta log x for
// delta << x, delta log delta beyond), so it is exact to rounding of that, where the lgamma
// difference loses eps x log x.
inline double log_gamma_shift(double x, double delta) {
  auto stirling_tail = [](double t) {
    const double r = 1.0 / t, r2 = r * r;
    return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680))));
  };
  const double a = x + 1.0, b = a + delta;
  return delta * std::log(a) + ((b - 0.5) * std::log1p(delta / a) - delta) + (stirling_tail(b) - stirling_tail(a));
}

struct RisingFactorial {
  double value = 0.0, d1 = 0.0, d2 = 0.0;  // R, R1, R2 above
};

inline constexpr double kRisingDirect = 64;

// R, and with `derivatives` R1 and R2, for an integer y >= 0 and phi > 0.
inline RisingFactorial log_rising_factorial(double y, double phi, bool derivatives) {
  RisingFactorial r;
  if (y == 0.0) return r;
  if (phi > 1000.0 * y && y > kRisingDirect) {
    // Far above y (phi > 65000): Stirling's series as differences, each exact to rounding of the
    // answer (y / phi for R1, -y / phi^2 for R2) with a = phi, b = phi + y:
    //   R  = log_gamma_shift(phi - 1, y),
    //   R1 = log1p(y / a) - (1/b - 1/a) / 2 - (1/b^2 - 1/a^2) / 12 + (1/b^4 - 1/a^4) / 120,
    //   R2 = (1/b - 1/a) + (1/b^2 - 1/a^2) / 2 + (1/b^3 - 1/a^3) / 6 - (1/b^5 - 1/a^5) / 30,
    // the next terms below 1e-20 of the answer; the sums would take y steps (10^8 for a count of
    // 10^8: minutes per pass where an early iterate of the exact method puts phi that high).
    r.value = log_gamma_shift(phi - 1.0, y);
    if (derivatives) {
      const double ia = 1.0 / phi, ib = 1.0 / (phi + y);
      const double d1 = -y * ia * ib;                    // 1/b - 1/a
      const double d2 = d1 * (ia + ib);                  // 1/b^2 - 1/a^2
      const double d3 = d1 * (ia * ia + ia * ib + ib * ib);
      const double d4 = d2 * (ia * ia + ib * ib);
      const double d5 = d1 * (ia * ia * ia * ia + ia * ia * ia * ib + ia * ia * ib * ib + ia * ib * ib * ib + ib * ib * ib * ib);
      r.d1 = std::log1p(y * ia) - 0.5 * d1 - d2 / 12.0 + d4 / 120.0;
      r.d2 = d1 + 0.5 * d2 + d3 / 6.0 - d5 / 30.0;
    }
    return r;
  }
  if (y <= kRisingDirect) {
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

// The negative binomial's whole normalizing constant, log Gamma(y + phi) - log Gamma(phi) - log y!
// = R - log y!, in `value`, with R's derivatives in phi (log y! has none). For a large count and
// phi <= y, R and log y! are both near y log y while their difference is near (phi - 1) log y -
// log Gamma(phi): subtracted, they would leave eps y log y of rounding (3e-6 at y = 5.8e8, summed
// over rows far above the 1e-12 of the ELBO the exact optimizer's line search compares), so the
// difference is taken whole, log Gamma(y + phi) - log y! = log_gamma_shift(y, phi - 1).
inline RisingFactorial log_nb_coefficient(double y, double phi, bool derivatives) {
  if (y > kRisingDirect && phi <= y) {
    RisingFactorial r;
    r.value = log_gamma_shift(y, phi - 1.0) - ad::math::log_gamma(phi);
    if (derivatives) {
      r.d1 = ad::math::digamma(y + phi) - ad::math::digamma(phi);
      r.d2 = trigamma(y + phi) - trigamma(phi);
    }
    return r;
  }
  RisingFactorial r = log_rising_factorial(y, phi, derivatives);
  r.value -= log_factorial(y);
  return r;
}

}  // namespace bvi::math
