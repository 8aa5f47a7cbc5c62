#include "models/likelihoods/expectation_kernels.hpp"

#include <cmath>

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
  static const std::vector<quadrature::Tier> t{{0.03, 4}, {0.1, 6},  {0.2, 8},  {0.3, 12}, {0.5, 16},
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

}  // namespace

void LogNdtrKernel::values(const double* eta, Index n, double* f0, double* f1, double* f2) const {
  for (Index i = 0; i < n; ++i) {
    double r;
    f0[i] = math::log_ndtr(eta[i], &r);
    f1[i] = r;
    f2[i] = d2_log_ndtr(eta[i], r);
  }
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
