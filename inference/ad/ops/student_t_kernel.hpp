#pragma once
// The Student t log density of one element and its partials, shared by student_t_lpdf and
// half_student_t_lpdf (which adds log 2 on x >= 0). With z = (x - loc)/scale, nu = df:
//   log t = C(nu) - log(scale) - (nu + 1)/2 L,   L = log(1 + z^2/nu),
//   C(nu) = log Gamma((nu + 1)/2) - log Gamma(nu/2) - log(nu pi)/2.
// Partials, with w = z^2/(nu + z^2) and r = z/(nu + z^2):
//   d/dx = -(nu + 1) r / scale,  d/dloc = (nu + 1) r / scale,  d/dscale = ((nu + 1) w - 1) / scale,
//   d/dnu = (psi((nu + 1)/2) - psi(nu/2) - 1/nu - L + (nu + 1) w / nu) / 2,
// each of whose two groups is O(1/nu^2) and is computed without cancellation (see below).
// nu = +inf is the normal limit (scipy's t does the same); nu <= 0 or scale <= 0 give NaN.
#include <cmath>
#include <limits>

#include "inference/ad/math/special_functions.hpp"

namespace bvi::ad::detail {

class StudentTKernel {
 public:
  // d (when not null) receives d/dx, d/dnu, d/dloc, d/dscale.
  double operator()(double x, double nu, double loc, double scale, double* d) {
    if (!(nu > 0.0) || !(scale > 0.0)) return std::numeric_limits<double>::quiet_NaN();
    const double z = (x - loc) / scale;
    const double log_scale = std::log(scale);
    if (nu == std::numeric_limits<double>::infinity()) {
      if (d) {
        d[0] = -z / scale;
        d[1] = 0.0;
        d[2] = z / scale;
        d[3] = (z * z - 1.0) / scale;
      }
      return -0.5 * z * z - log_scale - kHalfLog2Pi;
    }
    update(nu, d != nullptr);
    const double L = math::log1p_sq_div(z, nu);
    if (d) {
      const double r = std::abs(z) > 1.0 ? 1.0 / (z + nu / z) : z / (nu + z * z);  // z/(nu + z^2), no overflow
      const double w = 1.0 / (1.0 + nu / (z * z));  // z^2/(nu + z^2), safe at z = 0 and z^2 = inf
      d[0] = -(nu + 1.0) * r / scale;
      // -L + (nu + 1) w/nu = -f + w/nu with f = log(1 + u) - u/(1 + u) = sum_{k>=2} w^k/k
      // (u = z^2/nu, w = u/(1 + u)): f is O(u^2), so L - w cancels for large df; the series,
      // all of whose terms are positive, does not.
      d[1] = 0.5 * (dconst_ - log1p_minus_ratio(L, w) + w / nu);
      d[2] = (nu + 1.0) * r / scale;
      d[3] = ((nu + 1.0) * w - 1.0) / scale;
    }
    return const_ - log_scale - 0.5 * (nu + 1.0) * L;
  }

 private:
  static constexpr double kHalfLog2Pi = 0.91893853320467274178;  // log(2 pi)/2
  static constexpr double kLogPi = 1.14472988584940017414;       // log(pi)

  // log(1 + u) - w = sum_{k>=2} w^k / k with w = u/(1 + u) and L = log(1 + u). For w < 0.1 the
  // series converges fast (36 terms at most to 1e-17 relative); above, L - w loses at most 20x eps.
  static double log1p_minus_ratio(double L, double w) {
    if (!(w < 0.1)) return L - w;
    double sum = 0.0, p = w * w;
    for (int k = 2; k < 40 && p > 1e-17 * sum * k; ++k, p *= w) sum += p / k;
    return sum;
  }

  // The df-only terms, recomputed only when df changes: a prior's df is usually one number or
  // one per column, and lgamma and digamma cost more than the rest of the element.
  void update(double nu, bool grad) {
    if (nu != nu_) {
      nu_ = nu;
      const_ = math::log_gamma_half_step(0.5 * nu) - 0.5 * (std::log(nu) + kLogPi);
      have_dconst_ = false;
    }
    if (grad && !have_dconst_) {
      // psi((nu + 1)/2) - psi(nu/2) - 1/nu, which is O(1/nu^2): a difference of digammas would
      // leave only their rounding at large df.
      dconst_ = math::digamma_half_step_excess(0.5 * nu);
      have_dconst_ = true;
    }
  }
  double nu_ = std::numeric_limits<double>::quiet_NaN();  // never equal: the first call computes
  double const_ = 0.0, dconst_ = 0.0;
  bool have_dconst_ = false;
};

}  // namespace bvi::ad::detail
