#pragma once
// The data-only constants of the count likelihoods, as scipy.stats writes them (gammaln):
//   log y! = lgamma(y + 1),   log C(n, y) = lgamma(n + 1) - (lgamma(y + 1) + lgamma(n - y + 1)).
// Through the reentrant lgamma_r (glibc, BSD, macOS): std::lgamma writes the global `signgam`, a
// data race when OpenMP threads call it. Every argument here is >= 1, where the sign is +.
#include <cmath>

namespace bvi::math {

inline double log_factorial(double y) {
  int sign = 0;
  return ::lgamma_r(y + 1.0, &sign);
}

inline double log_binomial_coefficient(double n, double y) {
  return log_factorial(n) - (log_factorial(y) + log_factorial(n - y));
}

}  // namespace bvi::math
