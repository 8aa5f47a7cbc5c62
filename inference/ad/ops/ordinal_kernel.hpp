#pragma once
// The cumulative ordinal model's log probability of one category, and its partials (Stan's
// ordered_logistic / ordered_probit, brms's cumulative family): for the category's bounds
// a = c_{k-1} - eta and b = c_k - eta (a = -inf for the first category, b = +inf for the last)
//   l(a, b) = log(F(b) - F(a)),   F = expit (logit) or Phi (probit),
// written so that no difference of two probabilities near 1 (or near 0) loses its digits:
//   logit:  F(b) - F(a) = expit(b) (1 - expit(a)) (1 - e^{a - b}), so
//           l = -softplus(-b) - softplus(a) + log1mexp(a - b),
//           dl/db = expit(-b) + 1 / expm1(b - a),   dl/da = -expit(a) - 1 / expm1(b - a);
//   probit: with a >= 0 reflected (Phi(b) - Phi(a) = Phi(-a) - Phi(-b)); then a < 0 and
//           b <= -1: l = log Phi(b) + log1mexp(log Phi(a) - log Phi(b))  (both in the lower tail)
//           b > -1:  l = log((erf(b / sqrt 2) - erf(a / sqrt 2)) / 2)    (no erf near -1 in the
//                    difference but a's, and across 0 a sum of two positive halves)
//           dl/db = phi(b) e^{-l},  dl/da = -phi(a) e^{-l}  (phi(+-inf) = 0); in the tail from
//           phi/Phi (log_ndtr.hpp) and r = Phi(a)/Phi(b): dl/db = (phi(b)/Phi(b)) / (1 - r), dl/da = -(phi(a)/Phi(a)) r / (1 - r).
// b < a (cutpoints out of order) gives NaN, b == a gives -inf (dl/db = +inf and dl/da = -inf where
// the bound is finite, as the logit's 1 / expm1(b - a)).
#include <cmath>
#include <limits>

#include "inference/math/log_ndtr.hpp"

namespace bvi::ad::detail {

enum class OrdinalLink : unsigned char { logit, probit };

inline double ordinal_softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
inline double ordinal_expit(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}
// log(1 - e^d) for d <= 0 (Maechler's two branches); NaN for d > 0.
inline double ordinal_log1mexp(double d) {
  if (d > 0) return std::numeric_limits<double>::quiet_NaN();
  return d > -0.6931471805599453 ? std::log(-std::expm1(d)) : std::log1p(-std::exp(d));
}

inline double ordinal_logit_term(double a, double b, double* da, double* db) {
  const double l = -ordinal_softplus(-b) - ordinal_softplus(a) + ordinal_log1mexp(a - b);
  if (da) {
    // 1 / expm1(b - a): 0 when either bound is infinite, +inf for equal bounds (+ 0.0: a tie of
    // 0 and -0, a cutpoint -0 at eta = 0, gives b - a = -0, and 1 / expm1(-0) = -inf)
    const double r = 1.0 / std::expm1((b - a) + 0.0);
    *db = ordinal_expit(-b) + r;
    *da = -ordinal_expit(a) - r;
  }
  return l;
}

// log phi(x), -inf at +-inf.
inline double ordinal_log_normal_density(double x) { return -0.5 * x * x - bvi::math::kLogSqrt2Pi; }

inline double ordinal_probit_term(double a, double b, double* da, double* db) {
  // Reflect: log(Phi(-a) - Phi(-b)), with the partials swapped and negated. Only for b > a, so the
  // reflected lower bound -b is below 0 and the call below does not reflect again: b < a (out of
  // order, NaN below) would take (0.3, -0.7) to (0.7, -0.3) and back, and equal bounds at 0
  // (cutpoints tied at eta) take (0, 0) to (-0, -0) and back, forever. Equal bounds a >= 0 are
  // left here: erf(b k) - erf(a k) = 0 gives l = -inf, and partials +-inf as the logit's.
  if (a >= 0 && b > a) {
    double ra = 0.0, rb = 0.0;
    const double l = ordinal_probit_term(-b, -a, da ? &ra : nullptr, da ? &rb : nullptr);
    if (da) {
      *da = -rb;
      *db = -ra;
    }
    return l;
  }
  double l;
  if (!(b > -1.0)) {
    double hb = 0.0, ha = 0.0;  // phi/Phi at b and a
    const double lb = bvi::math::log_ndtr(b, &hb), la = bvi::math::log_ndtr(a, &ha);
    l = lb + ordinal_log1mexp(la - lb);
    if (da) {
      // P = Phi(b) (1 - r), r = Phi(a)/Phi(b): dl/db = (phi(b)/Phi(b)) / (1 - r), dl/da = -(phi(a)/Phi(a)) r / (1 - r),
      // each factor to its relative precision (phi(b) e^{-l} loses eps |l|, 1e-11 at b = -800).
      // om as 0 - expm1, not -expm1: equal bounds (la = lb) then give om = +0, and dl/db = +inf,
      // dl/da = -inf as the other branch and the logit do, not the signs of -0.
      const double r = std::exp(la - lb), om = 0.0 - std::expm1(la - lb);
      *db = std::isinf(b) ? 0.0 : hb / om;
      *da = std::isinf(a) ? 0.0 : -ha * (r / om);
    }
    return l;
  } else {
    l = std::log(0.5 * (std::erf(b * bvi::math::kInvSqrt2) - std::erf(a * bvi::math::kInvSqrt2)));
  }
  if (da) {
    *db = std::isinf(b) ? 0.0 : std::exp(ordinal_log_normal_density(b) - l);
    *da = std::isinf(a) ? 0.0 : -std::exp(ordinal_log_normal_density(a) - l);
  }
  return l;
}

// One row and draw: category k0 (0-based, 0 ... K - 1) of K, the draw's K - 1 cutpoints
// c[j * stride], linear predictor eta. Returns l and, when d_eta is not null, sets d_eta and the
// partials in the (at most two) cutpoints the category reads: d_lo for c_{k0-1}, d_hi for c_{k0}.
inline double ordinal_term(OrdinalLink link, int k0, int K, const double* c, long stride, double eta,
                           double* d_eta, double* d_lo, double* d_hi) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double a = k0 > 0 ? c[static_cast<long>(k0 - 1) * stride] - eta : -inf;
  const double b = k0 < K - 1 ? c[static_cast<long>(k0) * stride] - eta : inf;
  double da = 0.0, db = 0.0;
  double* pa = d_eta ? &da : nullptr;
  double* pb = d_eta ? &db : nullptr;
  const double l = link == OrdinalLink::logit ? ordinal_logit_term(a, b, pa, pb) : ordinal_probit_term(a, b, pa, pb);
  if (d_eta) {
    *d_eta = -(da + db);  // a and b both fall as eta grows
    *d_lo = da;
    *d_hi = db;
  }
  return l;
}

}  // namespace bvi::ad::detail
