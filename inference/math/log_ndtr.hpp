#pragma once
// log Φ(x), the log of the standard normal CDF, and its derivative φ(x)/Φ(x), stable at every x
// (scipy.special.log_ndtr's scheme, with log1p in the upper tail):
//   x > 0:        log Φ(x) = log1p(-Φ(-x)),  Φ(-x) = erfc(x/√2)/2   (log of a number near 1 would
//                 keep only its absolute error, 1e-16, of a log Φ as small as 1e-10 at x = 6)
//   -20 < x ≤ 0:  log Φ(x) = log(erfc(-x/√2)/2)                     (erfc is relatively accurate)
//   x ≤ -20:      Φ(x) = φ(x)/(-x) · A(x),  A(x) = 1 - 1/x² + 3/x⁴ - 15/x⁶ + …  (Mills' asymptotic
//                 series), so log Φ(x) = -x²/2 - log(-x) - log √(2π) + log A(x): no underflow even
//                 where Φ(x) itself is below the smallest double (x < -38.5).
#include <cmath>
#include <limits>

namespace bvi::math {

inline constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log √(2π)
inline constexpr double kInvSqrt2 = 0.70710678118654752440;    // 1/√2

// A(x) above, for x ≤ -20: term k is (-1)^k (2k-1)!!/x^(2k), below 1e-17 by k = 10 at x = -20,
// and the terms shrink until k ≈ x²/2, so the loop stops on convergence, not on divergence.
inline double mills_series(double x) {
  const double r = 1.0 / (x * x);
  double sum = 1.0, term = 1.0;
  for (int k = 1; k < 64; ++k) {
    term *= -(2.0 * k - 1.0) * r;
    const double next = sum + term;
    if (next == sum) break;
    sum = next;
  }
  return sum;
}

inline double log_ndtr(double x) {
  if (x > 0.0) return std::log1p(-0.5 * std::erfc(x * kInvSqrt2));
  if (x > -20.0) return std::log(0.5 * std::erfc(-x * kInvSqrt2));
  if (!(x > -std::numeric_limits<double>::infinity())) return x;  // -inf stays -inf, NaN stays NaN
  return -0.5 * x * x - std::log(-x) - kLogSqrt2Pi + std::log(mills_series(x));
}

// d/dx log Φ(x) = φ(x)/Φ(x) (the inverse Mills ratio of -x): -x/A(x) in the lower tail, where
// φ and Φ would both underflow; 0 once φ(x) underflows for x ≫ 0 (the true value is below 1e-300).
inline double dlog_ndtr(double x) {
  if (x > -20.0) return std::exp(-0.5 * x * x - kLogSqrt2Pi - log_ndtr(x));
  if (!(x > -std::numeric_limits<double>::infinity()))
    return std::isnan(x) ? x : std::numeric_limits<double>::infinity();
  return -x / mills_series(x);
}

// Both at once, sharing the one erfc: returns log Φ(x) and sets *d = φ(x)/Φ(x).
inline double log_ndtr(double x, double* d) {
  if (x > -20.0) {
    const double lp = log_ndtr(x);
    *d = std::exp(-0.5 * x * x - kLogSqrt2Pi - lp);
    return lp;
  }
  *d = dlog_ndtr(x);
  return log_ndtr(x);
}

}  // namespace bvi::math
