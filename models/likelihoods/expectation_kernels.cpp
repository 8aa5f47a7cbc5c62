#include "models/likelihoods/expectation_kernels.hpp"

#include <cmath>

#include "inference/ad/ops/ordinal_probit_packet.hpp"
#include "inference/ad/packet_log1p.hpp"
#include "inference/math/log_ndtr.hpp"

// Packet types carry alignment attributes that template arguments drop; harmless here.
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace bvi::models {

namespace {

// softplus, sigmoid and sigmoid sigmoid(-) at eta, and with Reflected the same at -eta (g0, g1, g2),
// from one exp per value. e = exp(-|x|) in (0, 1]: softplus(x) = max(x, 0) + log1p(e), sigmoid(x) =
// 1/(1 + e) for x >= 0 and e/(1 + e) below, sigmoid(x) sigmoid(-x) = e/(1 + e)^2; nothing
// overflows, and log1p keeps softplus's relative accuracy where it is tiny (x << 0), which
// log(1 + e) would not. At -x: the same log1p(e), the two sigmoids swapped, and an even f''.
template <bool Reflected>
void softplus_values(const SoftplusKernel& k, const double* eta, Index n, double* f0, double* f1, double* f2,
                     double* g0, double* g1, double* g2) {
  namespace ei = Eigen::internal;
  using Packet = ei::packet_traits<double>::type;
  constexpr Index W = ei::unpacket_traits<Packet>::size;
  const Packet zero = ei::pset1<Packet>(0.0), one = ei::pset1<Packet>(1.0);
  Index i = 0;
  for (; i + W <= n; i += W) {
    const Packet x = ei::ploadu<Packet>(eta + i);
    const Packet e = ei::pexp(ei::pnegate(ei::pabs(x)));
    const Packet r = ei::pdiv(one, ei::padd(one, e)), er = ei::pmul(e, r);
    const Packet l = ad::packet_log1p_unit(e), up = ei::pcmp_le(zero, x);
    // (values keeps its rounding of f''; the pair takes the product it has at hand)
    const Packet s2 = Reflected ? ei::pmul(er, r) : ei::pmul(e, ei::pmul(r, r));
    ei::pstoreu(f0 + i, ei::padd(ei::pmax(x, zero), l));
    ei::pstoreu(f1 + i, ei::pselect(up, r, er));
    ei::pstoreu(f2 + i, s2);
    if constexpr (Reflected) {
      ei::pstoreu(g0 + i, ei::padd(ei::pmax(ei::pnegate(x), zero), l));
      ei::pstoreu(g1 + i, ei::pselect(up, er, r));
      ei::pstoreu(g2 + i, s2);
    }
  }
  for (; i < n; ++i) {
    double f[3];
    k.value(eta[i], f);
    f0[i] = f[0];
    f1[i] = f[1];
    f2[i] = f[2];
    if constexpr (Reflected) {
      k.value(-eta[i], f);
      g0[i] = f[0];
      g1[i] = f[1];
      g2[i] = f[2];
    }
  }
}

}  // namespace

void SoftplusKernel::values(const double* eta, Index n, double* f0, double* f1, double* f2) const {
  softplus_values<false>(*this, eta, n, f0, f1, f2, nullptr, nullptr, nullptr);
}

void SoftplusKernel::values_reflected(const double* eta, Index n, double* f0, double* f1, double* f2,
                                      double* g0, double* g1, double* g2) const {
  softplus_values<true>(*this, eta, n, f0, f1, f2, g0, g1, g2);
}

void SoftplusKernel::value(double x, double* f) const {
  const double e = std::exp(-std::abs(x)), inv = 1.0 / (1.0 + e);
  f[0] = std::max(x, 0.0) + std::log1p(e);
  f[1] = x >= 0.0 ? inv : e * inv;
  f[2] = e * inv * inv;
}

const std::vector<quadrature::Tier>& SoftplusKernel::tiers() {
  // The third numbers, max_tilt (gaussian_expectations_reflected_tilt), were measured with a
  // 250-point rule at the shifted mean as reference: at these tilts the reweighted rule's error
  // equals the direct rule's (at 4 points, a tilt of 0.03 costs 1e-13, 0.1 costs 5e-11).
  static const std::vector<quadrature::Tier> t{
      {0.03, 4, 0.01}, {0.1, 6, 0.03}, {0.2, 8, 0.1},  {0.3, 12, 0.3},  {0.5, 16, 0.3},
      {0.7, 24, 0.3},  {1.0, 48, 0.3}, {1.5, 96, 0.3}, {2.0, 128, 0.3}, {3.0, 192, 0.3}};
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

// A packet of x above -20: log Phi and r = phi/Phi from the ordered probit's end-category form
// (one erfcx, one log, one division per lane; ordinal_probit_packet.hpp), and f'' = -r (x + r),
// whose sum cancels only below -20, where the scalar series takes over.
void log_ndtr_packet(const double* x_in, double* f0, double* f1, double* f2) {
  namespace ei = Eigen::internal;
  using Packet = ei::packet_traits<double>::type;
  const Packet x = ei::ploadu<Packet>(x_in);
  const auto t = ad::detail::packet_log_ndtr(x);
  ei::pstoreu(f0, t.l);
  ei::pstoreu(f1, t.db);
  ei::pstoreu(f2, ei::pnegate(ei::pmul(t.db, ei::padd(x, t.db))));
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
