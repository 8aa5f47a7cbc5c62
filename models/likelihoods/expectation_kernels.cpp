#include "models/likelihoods/expectation_kernels.hpp"

#include <cmath>

#include "inference/ad/ops/ordinal_probit_packet.hpp"
#include "inference/ad/packet_log1p.hpp"
#include "inference/math/log_ndtr.hpp"

// Packet types carry alignment attributes that template arguments drop; harmless here.
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace bvi::models {

void SoftplusKernel::values(const double* eta, Index n, double* f0, double* f1, double* f2) const {
  // e = exp(-|x|) in (0, 1]: softplus(x) = max(x, 0) + log1p(e), sigmoid(x) = 1/(1 + e) for
  // x >= 0 and e/(1 + e) below, sigmoid(x) sigmoid(-x) = e/(1 + e)^2; nothing overflows, and
  // log1p keeps softplus's relative accuracy where it is tiny (x << 0), which log(1 + e) would not.
  namespace ei = Eigen::internal;
  using Packet = ei::packet_traits<double>::type;
  constexpr Index W = ei::unpacket_traits<Packet>::size;
  const Packet zero = ei::pset1<Packet>(0.0), one = ei::pset1<Packet>(1.0);
  Index i = 0;
  for (; i + W <= n; i += W) {
    const Packet x = ei::ploadu<Packet>(eta + i);
    const Packet e = ei::pexp(ei::pnegate(ei::pabs(x)));
    const Packet r = ei::pdiv(one, ei::padd(one, e));
    ei::pstoreu(f0 + i, ei::padd(ei::pmax(x, zero), ad::packet_log1p_unit(e)));
    ei::pstoreu(f1 + i, ei::pselect(ei::pcmp_le(zero, x), r, ei::pmul(e, r)));
    ei::pstoreu(f2 + i, ei::pmul(e, ei::pmul(r, r)));
  }
  for (; i < n; ++i) {
    double f[3];
    value(eta[i], f);
    f0[i] = f[0];
    f1[i] = f[1];
    f2[i] = f[2];
  }
}

void SoftplusKernel::value(double x, double* f) const {
  const double e = std::exp(-std::abs(x)), inv = 1.0 / (1.0 + e);
  f[0] = std::max(x, 0.0) + std::log1p(e);
  f[1] = x >= 0.0 ? inv : e * inv;
  f[2] = e * inv * inv;
}

const std::vector<quadrature::Tier>& SoftplusKernel::tiers() {
  static const std::vector<quadrature::Tier> t{{0.03, 4}, {0.1, 6},  {0.2, 8},  {0.3, 12},  {0.5, 16},
                                               {0.7, 24}, {1.0, 48}, {1.5, 96}, {2.0, 128}, {3.0, 192}};
  return t;
}

namespace {

// d²/dx² log Phi(x) = -r (x + r), r = phi/Phi. Below x = -20 the sum x + r cancels to -1/x: there
// r = -x / A(x) with A(x) = 1 + a(x) Mills' series, so x + r = x a(x) / A(x), with a(x) = A(x) - 1
// summed directly.
double d2_log_ndtr(double x, double r) {
  if (x > -20.0) return -r * (x + r);
  const double q = 1.0 / (x * x);
  double a = 0.0, term = 1.0;
  for (int k = 1; k < 64; ++k) {
    term *= -(2.0 * k - 1.0) * q;
    const double next = a + term;
    if (next == a) break;
    a = next;
  }
  return -r * (x * a / (1.0 + a));
}

// A packet of x, all above -20, through the scaled erfcx(u) = e^{u^2} erfc(u) (one call, no erfc
// underflow), c = sqrt(2/pi), k = 1/sqrt 2:
//   x <= 0: Phi(x) = erfcx(-x k) e^{-x^2/2} / 2,  log Phi = log(erfcx(-x k) / 2) - x^2/2,  r = c / erfcx(-x
//   k); x > 0:  Phi(x) = 1 - q,  q = e^{-x^2/2} erfcx(x k) / 2 <= 1/2,  log Phi = log1p(-q) by Kahan's
//           log(u) (-q) / (u - 1), u = 1 - q (relative accuracy where log Phi is as small as 1e-300),
//           r = phi(x) / Phi(x);
//   f'' = -r (x + r) (the sum cancels only below -20, where the scalar series takes over).
void log_ndtr_packet(const double* x_in, double* f0, double* f1, double* f2) {
  namespace ei = Eigen::internal;
  using Packet = ei::packet_traits<double>::type;
  auto c = [](double v) { return ei::pset1<Packet>(v); };
  const Packet x = ei::ploadu<Packet>(x_in), zero = c(0.0), one = c(1.0), half = c(0.5);
  const Packet e = ad::detail::packet_erfcx(ei::pmul(ei::pabs(x), c(math::kInvSqrt2)));
  const Packet h = ei::pmul(half, ei::pmul(x, x));
  const Packet pos = ei::pcmp_lt(zero, x);
  const Packet c_neg = c(0.79788456080286535588);  // sqrt(2/pi)
  Packet l, r;
  if (ei::predux_any(pos)) {  // one log and one division per lane, whichever branch it takes
    const Packet g = ei::pexp(ei::pnegate(h));
    const Packet q = ei::pmul(half, ei::pmul(g, e));
    const Packet u = ei::psub(one, q), um1 = ei::psub(u, one);
    const Packet exact = ei::pcmp_eq(um1, zero);  // q below half an ulp of 1: log1p(-q) = -q
    const Packet L = ei::plog(ei::pselect(pos, u, ei::pmul(half, e)));
    const Packet kahan = ei::pselect(exact, ei::pnegate(q),
                                     ei::pdiv(ei::pmul(L, ei::pnegate(q)), ei::pselect(exact, one, um1)));
    l = ei::pselect(pos, kahan, ei::psub(L, h));
    r = ei::pdiv(ei::pselect(pos, ei::pmul(g, c(0.39894228040143267794)), c_neg), ei::pselect(pos, u, e));
  } else {
    l = ei::psub(ei::plog(ei::pmul(half, e)), h);
    r = ei::pdiv(c_neg, e);
  }
  ei::pstoreu(f0, l);
  ei::pstoreu(f1, r);
  ei::pstoreu(f2, ei::pnegate(ei::pmul(r, ei::padd(x, r))));
}

void log_ndtr_scalar(double x, double* f0, double* f1, double* f2) {
  double r;
  *f0 = math::log_ndtr(x, &r);
  *f1 = r;
  *f2 = d2_log_ndtr(x, r);
}

}  // namespace

// Whole packets, then the scalar kernel (Mills' series) for any lane at or below -20 or NaN, and
// for the remainder. The packets are also the more accurate: the scalar r = exp(-x^2/2 - log Phi)
// keeps only log Phi's absolute error, 1e-14 of r at x = -15; erfcx's r keeps 5e-16.
void LogNdtrKernel::values(const double* eta, Index n, double* f0, double* f1, double* f2) const {
  namespace ei = Eigen::internal;
  using Packet = ei::packet_traits<double>::type;
  constexpr Index W = ei::unpacket_traits<Packet>::size;
  const Packet floor = ei::pset1<Packet>(-20.0);
  Index i = 0;
  for (; i + W <= n; i += W) {
    const Packet x = ei::ploadu<Packet>(eta + i);
    log_ndtr_packet(eta + i, f0 + i, f1 + i, f2 + i);
    if (ei::predux_any(
            ei::por(ei::pcmp_lt_or_nan(x, floor), ei::pcmp_eq(x, floor))))  // NaN, or at or below -20
      for (Index j = i; j < i + W; ++j)
        if (!(eta[j] > -20.0)) log_ndtr_scalar(eta[j], f0 + j, f1 + j, f2 + j);
  }
  for (; i < n; ++i) log_ndtr_scalar(eta[i], f0 + i, f1 + i, f2 + i);
}

void LogNdtrKernel::value(double x, double* f) const {
  values(&x, 1, f, f + 1, f + 2);
}

const std::vector<quadrature::Tier>& LogNdtrKernel::tiers() {
  static const std::vector<quadrature::Tier> t{{0.03, 6}, {0.1, 8},  {0.2, 12}, {0.3, 16},
                                               {0.5, 20}, {0.7, 24}, {1.0, 48}, {1.5, 96}};
  return t;
}

}  // namespace bvi::models
