#pragma once
// Special functions the log densities and their derivatives need: log Gamma (for the
// normalizing constants) and digamma, its derivative (for d/d df and d/d shape).
#include <cmath>
#include <limits>

namespace bvi::ad::math {

// log |Gamma(x)|. glibc's lgamma writes the global `signgam`, a data race if two threads evaluate
// densities at once; lgamma_r returns the sign instead. Every caller here passes x > 0.
inline double log_gamma(double x) {
#if defined(__GLIBC__)
  int sign;
  return ::lgamma_r(x, &sign);
#else
  return std::lgamma(x);
#endif
}

namespace detail {

// psi(x) = c0 + sum_{n>=1} c_n (x - x0)^n about the positive root x0 of psi, with
// c_n = psi^(n)(x0) / n! = (-1)^(n+1) zeta(n + 1, x0) (Hurwitz zeta); x0 is the double nearest the
// root and c0 = psi(x0) (not quite 0). Computed with mpmath at 50 digits. Near the root the
// recurrence below cancels (psi is a small difference of terms near 2); the series keeps the
// relative error at a few ulps. 22 terms reach 1e-18 relative for |x - x0| <= 0.2.
inline constexpr double kDigammaRoot = 1.4616321449683622;
inline constexpr double kDigammaAtRoot = -9.241265521729427e-17;
inline constexpr double kDigammaRootSeries[] = {
    0.9676722454476212,      -0.44276316898359219,    0.25849976095565108,     -0.16394270544240658,
    0.10782405069126241,     -0.072199561256454742,   0.048804288164143131,    -0.033161126474847376,
    0.022597648232218118,    -0.01542476590494897,    0.010538791616612184,    -0.0072045343863568747,
    0.0049267813957298576,   -0.0033698016554393312,  0.0023051263267349301,   -0.0015769367714301989,
    0.0010788252019162978,   -0.00073807093899600602, 0.00050495326583460275,  -0.00034546802510630818,
    0.00023635601564027086,  -0.00016170622091974827,
};

}  // namespace detail

// The digamma function psi(x) = d/dx log Gamma(x), as scipy.special.digamma.
//   x > 0 near the root 1.4616...: the Taylor series above;
//   other x > 0: psi(x) = psi(x + n) - sum_{k<n} 1/(x + k) up to x + n >= 10, then the
//     asymptotic series psi(x) ~ log x - 1/(2x) - sum_k B_2k / (2k x^2k) to x^-14 (the next term,
//     3617/8160 x^-16, is below 5e-17 at x = 10);
//   x < 0: the reflection psi(x) = psi(1 - x) - pi / tan(pi x), with tan(pi x) = tan(pi frac(x))
//     so the argument is exact; poles (0, -1, -2, ...) and -inf give NaN, +inf gives +inf.
// Accurate to a few ulps plus 1e-15 absolute for x > 0 (the recurrence cancels where psi is
// small, as at x = 1.7); for x < 0 absolutely, not relatively, near psi's negative
// roots (the densities only need x > 0).
inline double digamma(double x) {
  constexpr double pi = 3.14159265358979323846;
  if (std::isnan(x)) return x;
  if (x <= 0.0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();  // a pole, or -inf
    return digamma(1.0 - x) - pi / std::tan(pi * (x - std::floor(x)));
  }
  const double d = x - detail::kDigammaRoot;  // exact for x in [0.74, 2.9] (Sterbenz)
  if (std::abs(d) <= 0.2) {
    constexpr int n = sizeof(detail::kDigammaRootSeries) / sizeof(double);
    double p = detail::kDigammaRootSeries[n - 1];
    for (int k = n - 2; k >= 0; --k) p = p * d + detail::kDigammaRootSeries[k];
    return detail::kDigammaAtRoot + p * d;
  }
  double acc = 0.0;
  while (x < 10.0) {
    acc -= 1.0 / x;
    x += 1.0;
  }
  const double r = 1.0 / (x * x);
  // -B2/2 r + ... with B2 = 1/6, B4 = -1/30, B6 = 1/42, B8 = -1/30, B10 = 5/66, B12 = -691/2730, B14 = 7/6
  const double tail =
      r * (1.0 / 12 -
           r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * (1.0 / 132 - r * (691.0 / 32760 - r / 12))))));
  return acc + (std::log(x) - 0.5 / x - tail);
}

// log Gamma(a + 1/2) - log Gamma(a) for a > 0: the Student t normalizing constant with a = df/2.
// The plain lgamma difference loses log10(a) digits to cancellation and is 0 once a + 1/2 == a
// (a >= 2^52), where the answer is (1/2) log a; from a = 16 the Stirling series
//   (1/2) log a + sum_k (-1)^(k+1) (B_{k+1}(1/2) - B_{k+1}) / (k (k+1) a^k)
//     = (1/2) log a - 1/(8a) + 1/(192a^3) - 1/(640a^5) + 17/(14336a^7) - 31/(18432a^9) + 691/(180224a^11)
// (only odd k: B_n(1/2) = (2^(1-n) - 1) B_n, 0 for odd n >= 3) is within 3e-18 relative.
inline double log_gamma_half_step(double a) {
  if (a < 16.0) return log_gamma(a + 0.5) - log_gamma(a);
  const double r = 1.0 / a, r2 = r * r;
  const double series =
      r * (-1.0 / 8 +
           r2 * (1.0 / 192 + r2 * (-1.0 / 640 + r2 * (17.0 / 14336 + r2 * (-31.0 / 18432 + r2 * (691.0 / 180224))))));
  return 0.5 * std::log(a) + series;
}

// psi(a + 1/2) - psi(a) - 1/(2a) for a > 0: the Student t's d/d df constant with a = df/2 (times 2).
// The digamma difference is 1/(2a) + 1/(8a^2) + ..., so subtracting 1/(2a) afterwards leaves
// mostly rounding once a is large (at df = 1e6 the answer is 1.2e-13, while psi(a) ~ 13 carries
// 2e-15 of rounding). From a = 16 the derivative of the series above, 1/(2a) dropped, is used:
//   1/(8a^2) - 1/(64a^4) + 1/(128a^6) - 119/(14336a^8) + 279/(18432a^10) - 7601/(180224a^12),
// within 5e-15 relative at a = 16 (mpmath) and better beyond.
inline double digamma_half_step_excess(double a) {
  if (a < 16.0) return digamma(a + 0.5) - digamma(a) - 0.5 / a;
  const double r2 = 1.0 / (a * a);
  return r2 * (1.0 / 8 - r2 * (1.0 / 64 - r2 * (1.0 / 128 - r2 * (119.0 / 14336 - r2 * (279.0 / 18432 - r2 * (7601.0 / 180224))))));
}

// log(1 + z^2 / nu) for nu > 0 without overflow in z^2: once z^2/nu >= 1e16 the 1 is below
// rounding, and log(z^2/nu) + log1p(nu/z^2) is taken in logs. z = +-inf gives +inf.
inline double log1p_sq_div(double z, double nu) {
  const double u = z * z / nu;
  if (u < 1e16) return std::log1p(u);
  return 2.0 * std::log(std::abs(z)) - std::log(nu) + std::log1p(nu / (z * z));  // NaN z lands here too
}

}  // namespace bvi::ad::math
