#pragma once
// The beta regression log density of one response in (0, 1) and its partials, shared by
// beta_logit_glm (fused), beta_logit_lpdf (elementwise, the composed path) and predict. With mean
// mu = expit(eta) and precision phi, a = mu phi and b = (1 - mu) phi, as
// scipy.stats.beta(a, b).logpdf(y):
//   log p = log Gamma(phi) - log Gamma(a) - log Gamma(b) + (a - 1) log y + (b - 1) log(1 - y).
// b is phi expit(-eta), not phi - a, so it keeps its digits where mu is near 1. Partials, with
// s = mu (1 - mu) and D = log y - log(1 - y):
//   d/deta = phi s (psi(b) - psi(a) + D)
//   d/dphi = psi(phi) - mu psi(a) - (1 - mu) psi(b) + mu log y + (1 - mu) log(1 - y)
//   d/dy   = (a - 1) / y - (b - 1) / (1 - y)
// y outside (0, 1) gives -inf (the response is validated: the edges are never data), phi <= 0
// (or NaN) gives NaN, so a bad draw is rejected, not fatal.
#include <cmath>
#include <limits>

#include "inference/ad/math/special_functions.hpp"

namespace bvi::ad::detail {

struct BetaLogitTerms {
  double log_y, log1m_y;  // log y, log(1 - y)
};

inline BetaLogitTerms beta_logit_terms(double y) {
  return {std::log(y), std::log1p(-y)};
}

// log p - log Gamma(phi) for y, eta, phi, and with `d` not null d[0] = d/dy, d[1] = d/deta and
// d[2] = d/dphi - psi(phi) (written only where the value is finite): the terms of one element that
// depend on eta, so the fused op can take log Gamma(phi) and psi(phi) once per draw. `t` holds log y
// and log(1 - y).
inline double beta_logit_without_phi_terms(double y, double eta, double phi, const BetaLogitTerms& t,
                                           double* d) {
  if (!(phi > 0.0) || std::isnan(eta) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
  if (!(y > 0.0 && y < 1.0)) return -std::numeric_limits<double>::infinity();
  // expit(eta) and expit(-eta) from one exp of -|eta|
  const double e = std::exp(-std::abs(eta)), inv = 1.0 / (1.0 + e);
  const double mu = eta >= 0.0 ? inv : e * inv, nu = eta >= 0.0 ? e * inv : inv;  // nu = 1 - mu
  const double a = phi * mu, b = phi * nu;
  if (!(a > 0.0) || !(b > 0.0)) return -std::numeric_limits<double>::infinity();  // mu underflowed
  if (d) {
    const double pa = bvi::ad::math::digamma(a), pb = bvi::ad::math::digamma(b);
    d[0] = (a - 1.0) / y - (b - 1.0) / (1.0 - y);
    d[1] = phi * mu * nu * (pb - pa + t.log_y - t.log1m_y);
    d[2] = -mu * pa - nu * pb + mu * t.log_y + nu * t.log1m_y;
  }
  return -bvi::ad::math::log_gamma(a) - bvi::ad::math::log_gamma(b) + (a - 1.0) * t.log_y +
         (b - 1.0) * t.log1m_y;
}

// log p for y, eta, phi, every term; with `d` not null, d[0] = d/dy, d[1] = d/deta, d[2] = d/dphi.
inline double beta_logit(double y, double eta, double phi, const BetaLogitTerms& t, double* d) {
  const double v = beta_logit_without_phi_terms(y, eta, phi, t, d);
  if (!std::isfinite(v)) return v;
  if (d) d[2] += bvi::ad::math::digamma(phi);
  return v + bvi::ad::math::log_gamma(phi);
}

}  // namespace bvi::ad::detail
