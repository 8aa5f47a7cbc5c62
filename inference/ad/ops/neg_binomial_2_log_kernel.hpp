#pragma once
// The NB2 log mass of one count and its partials, shared by neg_binomial_2_log_glm (fused) and
// neg_binomial_2_log_lpdf (elementwise, the composed path). With mean mu = e^eta and shape phi,
// as scipy.stats.nbinom(n = phi, p = phi / (phi + mu)).logpmf(y):
//   log p = log Gamma(y + phi) - log Gamma(phi) - log y! + phi log(phi / (phi + mu)) + y log(mu / (phi + mu))
//         = R(y, phi) - log y! + y d - (y + phi) softplus(d),   d = eta - log phi,
// (log(phi + mu) = log phi + softplus(d)), so nothing overflows at any eta: a huge eta gives
// -phi d, finite, where exp(eta) would be inf. R is bvi::math::log_rising_factorial. Partials:
//   d/deta = y - (y + phi) sigmoid(d)                  (= phi (y - mu) / (phi + mu))
//   d/dphi = R1(y, phi) - y / phi - softplus(d) + (y + phi) sigmoid(d) / phi.
// y d is left out for y = 0 (scipy's xlogy), so eta = -inf gives log p = 0 for y = 0 and -inf
// otherwise. phi <= 0 (or NaN) gives NaN, so a bad draw is rejected, not fatal.
#include <cmath>
#include <limits>

#include "inference/math/log_factorial.hpp"
#include "inference/math/rising_factorial.hpp"

namespace bvi::ad::detail {

// log p for y, eta, phi; `log_constant` is -log y! (NaN: computed here). With `d` not null,
// d[0] = d/deta and d[1] = d/dphi.
inline double neg_binomial_2_log(double y, double eta, double phi, double log_constant, double* d) {
  if (!(phi > 0.0) || std::isnan(eta)) return std::numeric_limits<double>::quiet_NaN();
  const double x = eta - std::log(phi);
  const double e = std::exp(-std::abs(x)), inv = 1.0 / (1.0 + e);
  const double softplus = std::max(x, 0.0) + std::log1p(e);
  const double sigmoid = x >= 0.0 ? inv : e * inv;
  const bvi::math::RisingFactorial r = bvi::math::log_rising_factorial(y, phi, d != nullptr);
  const double c = std::isnan(log_constant) ? -bvi::math::log_factorial(y) : log_constant;
  const double yd = y == 0.0 ? 0.0 : y * x;
  if (d) {
    d[0] = y - (y + phi) * sigmoid;
    d[1] = r.d1 - y / phi - softplus + (y + phi) * sigmoid / phi;
  }
  return r.value + c + yd - (y + phi) * softplus;
}

}  // namespace bvi::ad::detail
