// The probit op's faster pieces (inference/ad/ops/ordinal_probit_packet.hpp): erfcx as four Horner
// chains, log Phi for the first and last categories (one erfcx), and the two-bound form whose
// partials come from the erf form's exps and the tail's erfcx ratios (no exp of l). References:
// mpmath at 50 digits (tests/reference/erfcx_table.py prints the tables), and the scalar kernel
// ordinal_probit_term (held against mpmath in test_ordinal_lpmf.cpp) for packets whose lanes take
// different branches at once.
#include <doctest/doctest.h>

#include <cmath>
#include <iomanip>
#include <limits>
#include <vector>

#include "inference/ad/ad.hpp"
#include "inference/ad/ops/ordinal_probit_packet.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_ordinal_probit_fast {

using namespace bvi;
namespace ei = Eigen::internal;
using Packet = ei::packet_traits<double>::type;
constexpr int W = ei::packet_traits<double>::size;

namespace {
const double inf = std::numeric_limits<double>::infinity();

// erfcx(u), tests/reference/erfcx_table.py.
const double kErfcx[][2] = {
    {0, 1.0},
    {1e-300, 1.0},
    {1e-8, 0.99999998871620843},
    {0.25, 0.77034654773099674},
    {0.5, 0.61569034419292587},
    {0.7071067811865476, 0.52315658373024671},
    {1, 0.427583576155807},
    {1.5, 0.3215854164543175},
    {2, 0.25539567631050574},
    {3.5, 0.1552936556088943},
    {5, 0.11070463773306863},
    {8, 0.069985166200880928},
    {12, 0.046854221014893763},
    {26, 0.021683584850562907},
    {27.5, 0.020502447384614798},
    {100, 0.0056416137829894329},
    {1e3, 0.00056418930145338765},
    {1e5, 5.6418958351954681e-6},
    {1e8, 5.6418958354775626e-9},
    {1e15, 5.6418958354775629e-16},
    {1e150, 5.6418958354775629e-151},
    {1e300, 5.6418958354775629e-301},
};

// b, log Phi(b), phi(b)/Phi(b), tests/reference/erfcx_table.py (values below the smallest double
// written as 0).
const double kLogNdtr[][3] = {
    {-1e100, -5.0e+199, 1.0e+100},
    {-1e8, -5000000000000019.3, 100000000.00000001},
    {-40, -804.60844201375379, 40.024968847207264},
    {-38.6, -749.55286084620778, 38.625872076797898},
    {-26, -342.17850892992783, 26.038348579495471},
    {-8, -35.01343715991455, 8.1213681122361127},
    {-3, -6.6077262215103495, 3.2830986549304365},
    {-1, -1.8410216450092635, 1.5251352761609812},
    {-0.9999, -1.8408691354861396, 1.5250551865122074},
    {-0.5, -1.1759117615936186, 1.1410777703680645},
    {-1e-9, -0.69314718135782987, 0.79788456143948513},
    {0, -0.69314718055994531, 0.79788456080286536},
    {1e-9, -0.69314717976206075, 0.79788456016624558},
    {0.3, -0.4814101615884812, 0.61722085361273444},
    {0.5, -0.36894641528865639, 0.50916043383703349},
    {1, -0.17275377902344989, 0.28759997093917836},
    {2, -0.023012909328963488, 0.055247862678989959},
    {5, -2.8665161296376359e-7, 1.4867199409049057e-6},
    {6, -9.8658764552437573e-10, 6.0758828558176764e-9},
    {8.3, -5.2055697448902853e-17, 4.3816394355093588e-16},
    {9, -1.1285884059538406e-19, 1.0279773571668915e-18},
    {20, 0.0, 5.5209483621597632e-88},
    {38, 0.0, 0.0},
    {40, 0.0, 0.0},
    {1e8, 0.0, 0.0},
};

bool near_value(double got, double want, double tol) { return std::abs(got - want) <= tol * std::max(1.0, std::abs(want)); }
bool near_rel(double got, double want, double tol) { return std::abs(got - want) <= tol * std::abs(want); }

// Lane i of a packet.
double lane(const Packet& p, int i) {
  double v[W];
  ei::pstoreu(v, p);
  return v[i];
}
Packet load(const std::vector<double>& v, std::size_t at) { return ei::ploadu<Packet>(v.data() + at); }
}  // namespace

TEST_CASE("packet erfcx, four Horner chains: mpmath from 0 to 1e300, lane by lane") {
  // Each value in every lane position, next to the table's other values (no lane sees another).
  const int n = static_cast<int>(sizeof kErfcx / sizeof kErfcx[0]);
  std::vector<double> u(static_cast<std::size_t>(n + W));
  for (int shift = 0; shift < W; ++shift) {
    for (int i = 0; i < n + W; ++i) u[static_cast<std::size_t>(i)] = kErfcx[(i + shift) % n][0];
    for (int i = 0; i + W <= n + W; i += W) {
      const Packet e = ad::detail::packet_erfcx(load(u, static_cast<std::size_t>(i)));
      for (int j = 0; j < W; ++j) {
        const int t = (i + j + shift) % n;
        INFO("u = " << kErfcx[t][0] << ": " << lane(e, j) << " against " << kErfcx[t][1]);
        // Weideman's N = 40 form holds 7e-16 (erfcx_weideman.py); rounding with or without FMA.
        CHECK(near_rel(lane(e, j), kErfcx[t][1], 2e-15));
      }
    }
  }
  // +inf as 1e300 (the first and last categories' infinite bound): finite, positive.
  const double at_inf = lane(ad::detail::packet_erfcx(ei::pset1<Packet>(inf)), 0);
  CHECK(near_rel(at_inf, 5.6418958354775629e-301, 2e-15));
}

TEST_CASE("packet log Phi (the first and last categories): mpmath from -1e100 to 1e8") {
  const int n = static_cast<int>(sizeof kLogNdtr / sizeof kLogNdtr[0]);
  std::vector<double> b(static_cast<std::size_t>(n + W));
  for (int shift = 0; shift < W; ++shift) {  // lanes of both signs together, and each sign alone
    for (int i = 0; i < n + W; ++i) b[static_cast<std::size_t>(i)] = kLogNdtr[(i + shift) % n][0];
    for (int i = 0; i + W <= n + W; i += W) {
      const auto t = ad::detail::packet_log_ndtr(load(b, static_cast<std::size_t>(i)));
      for (int j = 0; j < W; ++j) {
        const int r = (i + j + shift) % n;
        INFO("b = " << kLogNdtr[r][0] << ": l " << lane(t.l, j) << " dl/db " << lane(t.db, j));
        CHECK(lane(t.bad, j) == 0.0);
        // log Phi near 0 for large b keeps its absolute error (as the scalar kernel's erf form).
        CHECK(near_value(lane(t.l, j), kLogNdtr[r][1], 4e-15));
        CHECK(near_value(lane(t.db, j), kLogNdtr[r][2], 4e-15));
      }
    }
  }
  // +inf: Phi = 1 (l = 0, dl/db = 0); -inf, NaN and beyond 1e100: flagged for the scalar kernel.
  const auto top = ad::detail::packet_log_ndtr(ei::pset1<Packet>(inf));
  CHECK(lane(top.l, 0) == 0.0);
  CHECK(std::abs(lane(top.db, 0)) < 1e-300);  // Eigen's exp gives ~1e-308 below its range
  CHECK(lane(top.bad, 0) == 0.0);
  for (const double v : {-inf, std::numeric_limits<double>::quiet_NaN(), -1e101, 1e101}) {
    INFO("b = " << v);
    CHECK(lane(ad::detail::packet_log_ndtr(ei::pset1<Packet>(v)).bad, 0) != 0.0);
  }
}

TEST_CASE("packet ordinal probit, two bounds: lanes in the tail, the erf form, Kahan's branch and reflected at once") {
  // Every ordered pair of these bounds (a < b), taken W at a time in a rotating order so that each
  // packet mixes branches: the scalar kernel's numbers to 1e-12 (close bounds away from 0 keep
  // |log Phi| eps / (b - a), as in test_ordinal_probit_vectorized.cpp).
  const double ends[] = {-inf, -800.0, -38.0, -20.0, -8.3, -3.0, -1.2, -1.0000001, -1.0, -0.99999, -0.7, -0.3,
                         -1e-9, 0.0, 1e-9, 0.4, 0.51, 1.0, 1.00000001, 2.5, 9.0, 30.0, 30.0001, 700.0, inf};
  const int n = static_cast<int>(sizeof ends / sizeof ends[0]);
  std::vector<double> A, B;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (!(std::isinf(ends[i]) && std::isinf(ends[j]))) A.push_back(ends[i]), B.push_back(ends[j]);
  for (std::size_t i = 0; i < A.size(); i += 7) std::swap(A[i], A[(i * 13) % A.size()]), std::swap(B[i], B[(i * 13) % B.size()]);
  while (A.size() % W != 0) A.push_back(-1.0), B.push_back(1.0);
  for (std::size_t i = 0; i < A.size(); i += W) {
    const auto t = ad::detail::packet_ordinal_probit(load(A, i), load(B, i));
    for (int j = 0; j < W; ++j) {
      const double a = A[i + static_cast<std::size_t>(j)], b = B[i + static_cast<std::size_t>(j)];
      double da = 0.0, db = 0.0;
      const double l = ad::detail::ordinal_probit_term(a, b, &da, &db);
      INFO(std::setprecision(17) << "a = " << a << " b = " << b << ": l " << lane(t.l, j) << " against " << l << ", da " << lane(t.da, j)
                  << " against " << da << ", db " << lane(t.db, j) << " against " << db);
      REQUIRE(lane(t.bad, j) == 0.0);
      const bool close = b - a < 1e-3 && std::abs(a) > 0.5;
      CHECK(near_value(lane(t.l, j), l, close ? 1e-8 : 1e-12));
      // An infinite bound's partial is 0 (to the 1e-300 Eigen's exp gives below its range).
      if (std::isinf(a)) CHECK(std::abs(lane(t.da, j)) < 1e-300);
      else CHECK(near_value(lane(t.da, j), da, close ? 1e-7 : 1e-12));
      if (std::isinf(b)) CHECK(std::abs(lane(t.db, j)) < 1e-300);
      else CHECK(near_value(lane(t.db, j), db, close ? 1e-7 : 1e-12));
    }
  }
}

}  // namespace test_ordinal_probit_fast
