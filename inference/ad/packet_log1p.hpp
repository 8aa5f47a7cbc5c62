#pragma once
// log(1 + e) for e in [0, 1] on a whole SIMD packet: the softplus tail log(1 + exp(-|u|)) that
// the logistic likelihood evaluates once per draw and data row. Eigen's general plog spends
// half its time on what this range never needs (frexp, zero/negative/inf cases) and loses the
// low bits of e to the rounding of 1 + e; this is Cephes' log kernel on the one interval:
//   log(1 + f) = f - f^2/2 + f^3 P(f)/Q(f)      (double; f^3 P(f) for float),
// valid for sqrt(1/2) <= 1 + f < sqrt(2), with f = e below sqrt(2) - 1, and above it
// 1 + e = 2 (1 + f), f = (e - 1)/2 (exact), plus log 2. A NaN e gives NaN.
// Accuracy: within 4e-16 (double) of std::log1p over [0, 1], relative (tested).
#include <Eigen/Core>
#include <type_traits>

namespace bvi::ad {

template <class Packet>
Packet packet_log1p_unit(const Packet& e) {
  namespace ei = Eigen::internal;
  using T = typename ei::unpacket_traits<Packet>::type;
  const Packet one = ei::pset1<Packet>(T(1)), half = ei::pset1<Packet>(T(0.5));
  const Packet hi = ei::pcmp_lt(ei::pset1<Packet>(T(0.41421356237309504880)), e);
  const Packet f = ei::pselect(hi, ei::pmul(half, ei::psub(e, one)), e);
  const Packet log2 = ei::pand(hi, ei::pset1<Packet>(T(0.693147180559945309417232121458)));
  const Packet f2 = ei::pmul(f, f), f3 = ei::pmul(f2, f);
  Packet tail;
  if constexpr (std::is_same_v<T, double>) {
    // Cephes log.c: P and Q of degree 5, relative error 3.2e-16 peak on the interval.
    Packet p0 = ei::pmadd(ei::pset1<Packet>(1.01875663804580931796E-4), f, ei::pset1<Packet>(4.97494994976747001425E-1));
    Packet p1 = ei::pmadd(ei::pset1<Packet>(1.44989225341610930846E1), f, ei::pset1<Packet>(1.79368678507819816313E1));
    p0 = ei::pmadd(p0, f, ei::pset1<Packet>(4.70579119878881725854E0));
    p1 = ei::pmadd(p1, f, ei::pset1<Packet>(7.70838733755885391666E0));
    const Packet p = ei::pmadd(p0, f3, p1);
    Packet q0 = ei::padd(f, ei::pset1<Packet>(1.12873587189167450590E1));
    Packet q1 = ei::pmadd(ei::pset1<Packet>(8.29875266912776603211E1), f, ei::pset1<Packet>(7.11544750618563894466E1));
    q0 = ei::pmadd(q0, f, ei::pset1<Packet>(4.52279145837532221105E1));
    q1 = ei::pmadd(q1, f, ei::pset1<Packet>(2.31251620126765340583E1));
    const Packet q = ei::pmadd(q0, f3, q1);
    tail = ei::pdiv(ei::pmul(p, f3), q);
  } else {
    // Cephes logf.c: P of degree 8.
    Packet p0 = ei::pmadd(ei::pset1<Packet>(7.0376836292E-2f), f, ei::pset1<Packet>(-1.1514610310E-1f));
    Packet p1 = ei::pmadd(ei::pset1<Packet>(-1.2420140846E-1f), f, ei::pset1<Packet>(1.4249322787E-1f));
    Packet p2 = ei::pmadd(ei::pset1<Packet>(2.0000714765E-1f), f, ei::pset1<Packet>(-2.4999993993E-1f));
    p0 = ei::pmadd(p0, f, ei::pset1<Packet>(1.1676998740E-1f));
    p1 = ei::pmadd(p1, f, ei::pset1<Packet>(-1.6668057665E-1f));
    p2 = ei::pmadd(p2, f, ei::pset1<Packet>(3.3333331174E-1f));
    p0 = ei::pmadd(p0, f3, p1);
    p0 = ei::pmadd(p0, f3, p2);
    tail = ei::pmul(p0, f3);
  }
  return ei::padd(ei::padd(f, ei::pmadd(ei::pset1<Packet>(T(-0.5)), f2, tail)), log2);
}

}  // namespace bvi::ad
