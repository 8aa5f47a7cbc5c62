#pragma once
// The gamma log-linear log density of one positive response and its partials, shared by
// gamma_log_glm (fused), gamma_log_lpdf (elementwise, the composed path) and predict. With mean
// mu = e^eta and shape alpha (rate alpha / mu), as scipy.stats.gamma(a = alpha, scale = mu /
// alpha).logpdf(y):
//   log p = alpha log alpha - log Gamma(alpha) + (alpha - 1) log y - alpha eta - alpha y e^-eta.
// Partials:
//   d/deta   = alpha (y e^-eta - 1)
//   d/dalpha = log alpha + 1 - digamma(alpha) + log y - eta - y e^-eta
//   d/dy     = (alpha - 1) / y - alpha e^-eta
// y <= 0 gives -inf (the response is validated positive: the support's edge is never a datum),
// alpha <= 0 (or NaN) gives NaN, so a bad draw is rejected, not fatal. eta -> -inf gives -inf
// (y e^-eta overflows to inf), never NaN.
#include <cmath>
#include <limits>

#include "inference/ad/math/special_functions.hpp"

namespace bvi::ad::detail {

// log p for y, eta, alpha; `log_y` is log y (NaN: computed here). With `d` not null,
// d[0] = d/dy, d[1] = d/deta and d[2] = d/dalpha.
inline double gamma_log(double y, double eta, double alpha, double log_y, double* d) {
  if (!(alpha > 0.0) || std::isnan(eta) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
  if (!(y > 0.0)) return -std::numeric_limits<double>::infinity();
  const double ly = std::isnan(log_y) ? std::log(y) : log_y;
  const double ratio = y * std::exp(-eta);  // y / mu
  // eta -> -inf: -alpha eta and -alpha y e^-eta are +inf and -inf, the second wins.
  if (ratio == std::numeric_limits<double>::infinity()) return -std::numeric_limits<double>::infinity();
  const double log_alpha = std::log(alpha);
  if (d) {
    d[0] = (alpha - 1.0) / y - alpha * std::exp(-eta);
    d[1] = alpha * (ratio - 1.0);
    d[2] = log_alpha + 1.0 - bvi::ad::math::digamma(alpha) + ly - eta - ratio;
  }
  return alpha * (log_alpha - eta - ratio + ly) - bvi::ad::math::log_gamma(alpha) - ly;
}

}  // namespace bvi::ad::detail
