#pragma once
// The ordered probit's log probability of one category, l = log(Phi(b) - Phi(a)), and its partials,
// on a whole SIMD packet of draws: the scalar ordinal_probit_term (ordinal_kernel.hpp) with its
// branches as selects and erfc written through the scaled erfcx(u) = e^{u^2} erfc(u), u >= 0, so
// neither tail underflows. With k = 1/sqrt 2 and c = sqrt(2/pi):
//   reflect a >= 0 to (-b, -a) (partials swapped and negated); then a < 0, and
//   b <= -1 (both in the lower tail): Phi(x) = erfcx(-x k) e^{-x^2/2} / 2, so
//       P = Phi(b) (1 - r),  r = Phi(a)/Phi(b) = e^{-(a - b)(a + b)/2} erfcx(-a k) / erfcx(-b k) = e^d,
//       l = log(erfcx(-b k) (1 - r) / 2) - b^2/2  (one log: the product is >= ~1e-117, no underflow),
//       1 - r directly for r <= 1/2, else Kahan's (1 - r) d / log r;
//       phi(x)/Phi(x) = c / erfcx(-x k), so dl/db = c / (erfcx(-b k) (1 - r)), dl/da = -c r / (erfcx(-a k) (1 - r));
//   b > -1: P = (erf(b k) - erf(a k)) / 2, l = log P, erf odd, erf(x) = 1 - e^{-x^2} erfcx(x) for
//     x >= 1/2 and its Taylor series below (so close bounds near 0 keep their digits);
//     dl/db = phi(b) / P, dl/da = -phi(a) / P, phi(x) = e^{-x^2/2} / sqrt(2 pi) the exp erf took.
// No exp for the partials, one log per element. The first and last categories (one bound infinite)
// have their own form, packet_log_ndtr: log Phi(b) and phi(b)/Phi(b) from one erfcx.
// erfcx is Weideman's rational form (SIAM J. Numer. Anal. 31, 1994) with N = 40 coefficients,
// computed by FFT as his paper gives them (tests/reference/erfcx_weideman.py prints them); within
// 7e-16 relative of mpmath on [0, 1000]. Lanes with a NaN bound, a >= b, or a finite bound beyond
// 1e100 in size are flagged in `bad` for the scalar kernel.
#include <Eigen/Core>
#include <limits>

namespace bvi::ad::detail {

// Weideman's coefficients, highest power first.
inline constexpr double kWeidemanA[] = {
    -1.847901941834717e-15,  1.2699634805462313e-15, 1.1425337155015013e-14, -5.332389092620213e-15,
    -7.085129573559487e-14,  1.3708786548271085e-14, 4.53374876049246e-13,   1.2028277629232158e-13,
    -2.90789614609821e-12,   -2.7275959268990846e-12, 1.7714363309551116e-11, 3.4727509756748984e-11,
    -9.055103333821534e-11,  -3.5632323758250094e-10, 2.1086008494819453e-10, 3.0177806031872478e-09,
    3.2497466051495393e-09,  -1.8315616723274532e-08, -6.351773469692734e-08,  1.4198642558915786e-08,
    5.912136953820091e-07,   1.4835661133135585e-06,  -1.0660138984197208e-06, -1.800744714472496e-05,
    -5.591309264261925e-05,  -3.939363145496554e-05,  0.00043980701598679274,  0.0027054056330735976,
    0.010048186242783353,    0.029202916471241763,    0.07182361779074327,     0.15504263802479482,
    0.2998943799615006,      0.5266528988277084,      0.8472174576593815,      1.256381567576513,
    1.7253830848179779,      2.201513794878312,       2.61605415276186,        2.899624509389705};

// Weideman's p(z) = sum_j c_j z^j, c_j = kWeidemanA[39 - j], as four Horner chains in z^4 (each 9
// FMAs deep) instead of one of 39: the single chain was latency-bound, and took ~2/5 of the op.
template <class Packet>
Packet weideman_poly(const Packet& z) {
  namespace ei = Eigen::internal;
  const Packet z2 = ei::pmul(z, z), z4 = ei::pmul(z2, z2);
  Packet q[4];
  for (int r = 0; r < 4; ++r) q[r] = ei::pset1<Packet>(kWeidemanA[3 - r]);  // c_{36 + r}
  for (int i = 8; i >= 0; --i)
    for (int r = 0; r < 4; ++r) q[r] = ei::pmadd(q[r], z4, ei::pset1<Packet>(kWeidemanA[39 - (4 * i + r)]));
  return ei::padd(ei::pmadd(q[1], z, q[0]), ei::pmul(z2, ei::pmadd(q[3], z, q[2])));
}

template <class Packet>
Packet packet_erfcx(const Packet& u) {  // u >= 0; +inf is taken as 1e300
  namespace ei = Eigen::internal;
  const Packet L = ei::pset1<Packet>(5.3182958969449885);  // sqrt(N / sqrt 2)
  const Packet uc = ei::pmin(u, ei::pset1<Packet>(1e300));
  const Packet den = ei::padd(L, uc), inv = ei::pdiv(ei::pset1<Packet>(1.0), den);
  const Packet p = weideman_poly(ei::pmul(ei::psub(L, uc), inv));
  // 2 p / (L + u)^2 + (1 / sqrt pi) / (L + u)
  return ei::pmul(ei::pmadd(ei::pmul(ei::pset1<Packet>(2.0), p), inv, ei::pset1<Packet>(0.56418958354775628695)), inv);
}

// erf(x) for x >= 0, given g = e^{-x^2} and e = erfcx(x); `series` false when no lane is below 1/2.
template <class Packet>
Packet packet_erf_nonneg(const Packet& x, const Packet& g, const Packet& e, bool series) {
  namespace ei = Eigen::internal;
  const Packet one = ei::pset1<Packet>(1.0);
  if (!series) return ei::psub(one, ei::pmul(g, e));
  static constexpr double kT[] = {8.35070279514724e-11,    -1.0892221037148573e-09, 1.3122532963802806e-08,
                                  -1.4503852223150468e-07, 1.4589169000933706e-06,  -1.3227513227513228e-05,
                                  0.00010683760683760684,  -0.0007575757575757576,  0.004629629629629629,
                                  -0.023809523809523808,   0.1,                     -0.3333333333333333,
                                  1.0};  // (-1)^n / (n! (2n + 1)), n = 12 ... 0
  const Packet x2 = ei::pmul(x, x);
  Packet s = ei::pset1<Packet>(kT[0]);
  for (int i = 1; i < 13; ++i) s = ei::pmadd(s, x2, ei::pset1<Packet>(kT[i]));
  const Packet taylor = ei::pmul(ei::pmul(ei::pset1<Packet>(1.1283791670955125739), x), s);  // 2/sqrt(pi) x s
  return ei::pselect(ei::pcmp_lt(x, ei::pset1<Packet>(0.5)), taylor, ei::psub(one, ei::pmul(g, e)));
}

template <class Packet>
struct ProbitTerms {
  Packet l, da, db, bad;
};

// One bound: l = log Phi(b) and dl/db = phi(b)/Phi(b) (da is left 0), from erfcx(|b| k):
//   b <= 0: Phi(b) = erfcx(-b k) e^{-b^2/2} / 2, l = log(erfcx(-b k) / 2) - b^2/2, dl/db = c / erfcx(-b k);
//   b > 0:  Phi(b) = 1 - q, q = e^{-b^2/2} erfcx(b k) / 2 <= 1/2, dl/db = phi(b) / Phi(b), and
//           l = log1p(-q) by Kahan's log(u) (-q) / (u - 1), u = 1 - q: relative accuracy where l is
//           as small as 1e-300 (log(u) alone keeps only its absolute error, 1e-16).
// The first category is (-inf, b); the last, (a, inf), is (-inf, -a) reflected. b = -inf (the
// scalar kernel's equal bounds), NaN, or beyond 1e100 in size: flagged.
template <class Packet>
ProbitTerms<Packet> packet_log_ndtr(const Packet& b) {
  namespace ei = Eigen::internal;
  auto c = [](double v) { return ei::pset1<Packet>(v); };
  const Packet zero = c(0.0), half = c(0.5), inf = c(std::numeric_limits<double>::infinity());
  const Packet ab = ei::pabs(b);
  const Packet flag = ei::por(ei::pcmp_lt_or_nan(b, c(-std::numeric_limits<double>::max())) /* NaN or -inf */,
                              ei::pand(ei::pcmp_lt(c(1e100), ab), ei::pcmp_lt(ab, inf)));
  const Packet eb = packet_erfcx(ei::pmul(ab, c(0.70710678118654752440)));
  const Packet hb = ei::pmul(half, ei::pmul(b, b));
  const Packet neg = ei::pcmp_le(b, zero);
  const Packet root_2_over_pi = c(0.79788456080286535588);
  if (!ei::predux_any(ei::pcmp_lt(zero, b)))  // every b <= 0
    return {ei::psub(ei::plog(ei::pmul(half, eb)), hb), zero, ei::pdiv(root_2_over_pi, eb), flag};
  const Packet one = c(1.0);
  const Packet gb = ei::pexp(ei::pnegate(hb));
  const Packet q = ei::pmul(half, ei::pmul(gb, eb));
  const Packet u = ei::psub(one, q), um1 = ei::psub(u, one);  // u - 1 exact
  const Packet L = ei::plog(ei::pselect(neg, ei::pmul(half, eb), u));
  const Packet exact = ei::pcmp_eq(um1, zero);  // q below half an ulp of 1: log1p(-q) = -q
  const Packet upper = ei::pselect(exact, ei::pnegate(q),
                                   ei::pdiv(ei::pmul(L, ei::pnegate(q)), ei::pselect(exact, one, um1)));
  const Packet l = ei::pselect(neg, ei::psub(L, hb), upper);
  // One division: c / erfcx below 0, phi / Phi above (phi = e^{-b^2/2} / sqrt(2 pi)).
  const Packet db = ei::pdiv(ei::pselect(neg, root_2_over_pi, ei::pmul(gb, c(0.39894228040143267794))),
                             ei::pselect(neg, eb, u));
  return {l, zero, db, flag};
}

template <class Packet>
ProbitTerms<Packet> packet_ordinal_probit(const Packet& a0, const Packet& b0) {
  namespace ei = Eigen::internal;
  auto c = [](double v) { return ei::pset1<Packet>(v); };
  const Packet zero = c(0.0), one = c(1.0), half = c(0.5), k = c(0.70710678118654752440), big = c(1e100),
               inf = c(std::numeric_limits<double>::infinity());
  const Packet aa0 = ei::pabs(a0), ab0 = ei::pabs(b0);
  const Packet bad = ei::por(ei::pcmp_lt_or_nan(ei::psub(b0, a0), zero) /* NaN or b < a */,
                             ei::por(ei::pcmp_eq(a0, b0),
                                     ei::por(ei::pand(ei::pcmp_lt(big, aa0), ei::pcmp_lt(aa0, inf)),
                                             ei::pand(ei::pcmp_lt(big, ab0), ei::pcmp_lt(ab0, inf)))));
  const Packet refl = ei::pcmp_le(zero, a0);
  const Packet a = ei::pselect(refl, ei::pnegate(b0), a0), b = ei::pselect(refl, ei::pnegate(a0), b0);
  const Packet ua = ei::pmul(ei::pabs(a), k), ub = ei::pmul(ei::pabs(b), k);
  const Packet ea = packet_erfcx(ua), eb = packet_erfcx(ub);
  const Packet ha = ei::pmul(half, ei::pmul(a, a)), hb = ei::pmul(half, ei::pmul(b, b));  // a^2/2, b^2/2
  // Each branch only where some lane takes it (a row's draws mostly fall in one): the tail's logs,
  // the erf form's two exps, the series below 1/2. Then one log of the lane's own product.
  const Packet in_tail = ei::pcmp_le(b, c(-1.0));
  const Packet root_2_over_pi = c(0.79788456080286535588), inv_root_2pi = c(0.39894228040143267794);
  Packet arg = one, da = zero, db = zero;
  if (ei::predux_any(in_tail)) {  // b <= -1: the lower tail
    // r = e^x ea / eb, x = -(a - b)(a + b)/2 < 0 (e^x to 1 ulp: better than exp of x + log(ea / eb))
    const Packet x = ei::pnegate(ei::pmul(ei::pmul(half, ei::psub(a, b)), ei::padd(a, b)));
    const Packet r = ei::pmul(ei::pexp(x), ei::pdiv(ea, eb));
    Packet om = ei::psub(one, r);
    const Packet near = ei::pcmp_lt(half, r);
    if (ei::predux_any(ei::pand(near, in_tail))) {  // close bounds: Kahan's -expm1(d), d = log r
      const Packet d = ei::padd(x, ei::plog(ei::pdiv(ea, eb)));
      om = ei::pselect(near, ei::pselect(ei::pcmp_eq(r, one), ei::pnegate(d), ei::pdiv(ei::pmul(om, d), ei::plog(r))), om);
    }
    arg = ei::pmul(ei::pmul(half, eb), om);
    db = ei::pdiv(root_2_over_pi, ei::pmul(eb, om));
    da = ei::pnegate(ei::pdiv(ei::pmul(root_2_over_pi, r), ei::pmul(ea, om)));
  }
  if (ei::predux_any(ei::pcmp_lt(c(-1.0), b))) {  // b > -1: erf(b k) - erf(a k), a < 0
    const bool series = ei::predux_any(ei::por(ei::pcmp_lt(ua, half), ei::pcmp_lt(ub, half)));
    const Packet ga = ei::pexp(ei::pnegate(ha)), gb = ei::pexp(ei::pnegate(hb));
    const Packet erf_a = ei::pnegate(packet_erf_nonneg(ua, ga, ea, series));  // erf(a k)
    const Packet erf_b_abs = packet_erf_nonneg(ub, gb, eb, series);
    const Packet erf_b = ei::pselect(ei::pcmp_lt(b, zero), ei::pnegate(erf_b_abs), erf_b_abs);
    const Packet p = ei::pmul(half, ei::psub(erf_b, erf_a));
    const Packet ip = ei::pdiv(inv_root_2pi, p);
    arg = ei::pselect(in_tail, arg, p);
    db = ei::pselect(in_tail, db, ei::pmul(gb, ip));
    da = ei::pselect(in_tail, da, ei::pnegate(ei::pmul(ga, ip)));
  }
  const Packet l = ei::psub(ei::plog(arg), ei::pselect(in_tail, hb, zero));
  return {l, ei::pselect(refl, ei::pnegate(db), da), ei::pselect(refl, ei::pnegate(da), db), bad};
}

}  // namespace bvi::ad::detail
