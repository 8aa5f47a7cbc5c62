#pragma once
// log Gamma(x), psi(x) and psi1(x) (digamma, trigamma) for x > 0 together, on one SIMD packet: the
// exact method's beta_logit quadrature needs all three at two arguments per point, where the scalar
// lgamma_r, digamma and trigamma (each shifting x past 10 one division at a time) were the cost.
// With z = x + 10 for x < 10 (z = x otherwise), the three series share z, log z and r = 1/z:
//   log Gamma(z) = (z - 1/2) log z - z + log sqrt(2 pi) + sum_k B_2k / (2k (2k - 1) z^(2k-1))  (to z^-13),
//   psi(z)       = log z - r/2 - sum_k B_2k / (2k z^2k)                                      (to z^-14),
//   psi1(z)      = r + r^2/2 + sum_k B_2k / z^(2k+1)                                         (to z^-15),
// (the first terms left out are below 5e-17 relative at z = 10), and the shift's
//   log Gamma(x) = log Gamma(z) - log P,  psi(x) = psi(z) - sum_{k<10} 1/(x + k),
//   psi1(x) = psi1(z) + sum_{k<10} 1/(x + k)^2,   P = x (x + 1) ... (x + 9).
// The sums are N/Q and M/Q^2 over the factors k = 1..9 (Q = (x + 1) ... (x + 9), N and M by the
// recurrences N <- N t + Q, M <- M t^2 + Q^2, Q <- Q t: positive terms, no cancellation, one
// division), plus the k = 0 terms 1/x and 1/x^2: three divisions and two logs per element in all.
// Accuracy (tests/unit/ad/test_log_gamma_derivatives.cpp): log Gamma within 1e-14 of lgamma_r,
// relative above 1 in size, absolute below; psi within 2e-15 absolute plus 4e-15 relative of
// scipy (so not relatively near its root 1.4616..., where the shift cancels: the scalar digamma's
// Taylor series there is not repeated); psi1 within 4e-15 relative.
// Domain: x in [kLogGammaDerivativesMin, kLogGammaDerivativesMax]. Outside it (1/x^2 overflows
// below, the series overflows above) or for NaN the caller uses the scalar functions.
#include <Eigen/Core>

namespace bvi::ad::math {

inline constexpr double kLogGammaDerivativesMin = 1e-150, kLogGammaDerivativesMax = 1e300;

template <class Packet>
struct LogGammaDerivatives {
  Packet log_gamma, psi, psi1;
};

template <class Packet>
LogGammaDerivatives<Packet> packet_log_gamma_derivatives(const Packet& x) {
  namespace ei = Eigen::internal;
  auto c = [](double v) { return ei::pset1<Packet>(v); };
  const Packet ten = c(10.0), one = c(1.0);
  const Packet small = ei::pcmp_lt(x, ten);
  // The shift's products on min(x, 10): lanes at or above 10 do not use them, and this keeps
  // them finite there.
  const Packet xs = ei::pmin(x, ten);
  Packet q = ei::padd(xs, one), n = one, m = one;
  for (int k = 2; k < 10; ++k) {
    const Packet t = ei::padd(xs, c(static_cast<double>(k)));
    n = ei::pmadd(n, t, q);                           // N t + Q
    m = ei::pmadd(ei::pmul(m, t), t, ei::pmul(q, q));  // M t^2 + Q^2
    q = ei::pmul(q, t);
  }
  const Packet inv_q = ei::pdiv(one, q), inv_x = ei::pdiv(one, xs);
  const Packet s1 = ei::pmadd(n, inv_q, inv_x);                                        // sum 1/(x + k)
  const Packet s2 = ei::pmadd(ei::pmul(m, inv_q), inv_q, ei::pmul(inv_x, inv_x));  // sum 1/(x + k)^2
  const Packet log_p = ei::plog(ei::pmul(xs, q));

  const Packet z = ei::pselect(small, ei::padd(xs, ten), x);
  const Packet r = ei::pdiv(one, z), r2 = ei::pmul(r, r), log_z = ei::plog(z);
  // B2 = 1/6, B4 = -1/30, B6 = 1/42, B8 = -1/30, B10 = 5/66, B12 = -691/2730, B14 = 7/6
  Packet lg = ei::pmadd(r2, c(1.0 / 156), c(-691.0 / 360360));
  lg = ei::pmadd(lg, r2, c(1.0 / 1188));
  lg = ei::pmadd(lg, r2, c(-1.0 / 1680));
  lg = ei::pmadd(lg, r2, c(1.0 / 1260));
  lg = ei::pmadd(lg, r2, c(-1.0 / 360));
  lg = ei::pmadd(lg, r2, c(1.0 / 12));
  lg = ei::pmadd(lg, r, ei::psub(ei::pmul(ei::psub(z, c(0.5)), log_z), z));
  lg = ei::padd(lg, c(0.91893853320467274178));
  // psi's tail, r2 (1/12 - r2 (1/120 - r2 (1/252 - ...))), as the scalar digamma's
  Packet pt = ei::pmadd(r2, c(-1.0 / 12), c(691.0 / 32760));
  pt = ei::pmadd(pt, ei::pnegate(r2), c(1.0 / 132));
  pt = ei::pmadd(pt, ei::pnegate(r2), c(1.0 / 240));
  pt = ei::pmadd(pt, ei::pnegate(r2), c(1.0 / 252));
  pt = ei::pmadd(pt, ei::pnegate(r2), c(1.0 / 120));
  pt = ei::pmadd(pt, ei::pnegate(r2), c(1.0 / 12));
  const Packet psi = ei::psub(ei::psub(log_z, ei::pmul(c(0.5), r)), ei::pmul(r2, pt));
  // psi1's tail, r^3 (1/6 - r2 (1/30 - r2 (1/42 - ...))), as the scalar trigamma's
  Packet tt = ei::pmadd(r2, c(-7.0 / 6), c(691.0 / 2730));
  tt = ei::pmadd(tt, ei::pnegate(r2), c(5.0 / 66));
  tt = ei::pmadd(tt, ei::pnegate(r2), c(1.0 / 30));
  tt = ei::pmadd(tt, ei::pnegate(r2), c(1.0 / 42));
  tt = ei::pmadd(tt, ei::pnegate(r2), c(1.0 / 30));
  tt = ei::pmadd(tt, ei::pnegate(r2), c(1.0 / 6));
  const Packet psi1 = ei::padd(r, ei::pmadd(c(0.5), r2, ei::pmul(ei::pmul(r2, r), tt)));

  return {ei::pselect(small, ei::psub(lg, log_p), lg), ei::pselect(small, ei::psub(psi, s1), psi),
          ei::pselect(small, ei::padd(psi1, s2), psi1)};
}

}  // namespace bvi::ad::math
