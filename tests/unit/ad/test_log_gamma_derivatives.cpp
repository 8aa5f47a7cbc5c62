// log Gamma, psi and psi1 on SIMD packets (inference/ad/math/log_gamma_derivatives_packet.hpp):
// against mpmath at 40 digits (tests/reference/log_gamma_derivatives_table.py printed the rows),
// and over a dense grid against glibc's lgamma_r and the scalar digamma and trigamma (each tested
// against scipy/mpmath in test_special_functions.cpp and test_rising_factorial.cpp), with lanes
// on both sides of the shift's switch at 10 in the same packet.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <vector>

#include "inference/ad/math/log_gamma_derivatives_packet.hpp"
#include "inference/ad/math/special_functions.hpp"
#include "inference/math/rising_factorial.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_log_gamma_derivatives {

namespace ei = Eigen::internal;
using Packet = ei::packet_traits<double>::type;

namespace {

struct Values {
  std::vector<double> log_gamma, psi, psi1;
};

// The packet function over a whole vector, the last packet padded with 1.0.
Values evaluate(const std::vector<double>& x) {
  constexpr int W = ei::packet_traits<double>::size;
  Values v;
  alignas(64) double in[W], lg[W], psi[W], psi1[W];
  for (std::size_t i = 0; i < x.size(); i += W) {
    for (int k = 0; k < W; ++k) in[k] = i + k < x.size() ? x[i + k] : 1.0;
    const auto r = bvi::ad::math::packet_log_gamma_derivatives(ei::pload<Packet>(in));
    ei::pstore(lg, r.log_gamma);
    ei::pstore(psi, r.psi);
    ei::pstore(psi1, r.psi1);
    for (int k = 0; k < W && i + k < x.size(); ++k) {
      v.log_gamma.push_back(lg[k]);
      v.psi.push_back(psi[k]);
      v.psi1.push_back(psi1[k]);
    }
  }
  return v;
}

struct Row {
  double x, log_gamma, psi, psi1;
};
const Row kMpmath[] = {
    {1e-150, 3.453877639491068526e+2, -9.999999999999999937e+149, 9.9999999999999998741e+299},
    {1e-20, 4.6051701859880913735e+1, -1.0000000000000000549e+20, 1.0000000000000001097e+40},
    {1e-8, 1.8420680738180208884e+1, -1.0000000057721564636e+8, 1.0000000000000001226e+16},
    {0.001, 6.9071788853838536617, -1.0005755719318102797e+3, 1.0000016425331958273e+6},
    {0.1, 2.252712651734205902, -1.0423754940411076232e+1, 1.014332991507927477e+2},
    {0.5, 5.7236494292470008707e-1, -1.9635100260214234794, 4.9348022005446793094},
    {1, 0.0, -5.7721566490153286061e-1, 1.6449340668482264365},
    {1.25, -9.8271836421813161464e-2, -2.2745353337626540809e-1, 1.1973291545071107393},
    {1.4616321449683622, -1.214862905358496081e-1, -9.2412655217294275168e-17, 9.67672245447621255e-1},
    {1.5, -1.2078223763524522235e-1, 3.6489973978576520559e-2, 9.3480220054467930942e-1},
    {1.7, -9.5807697407065873788e-2, 2.0854787487349392145e-1, 7.9323283016399840877e-1},
    {2, 0.0, 4.2278433509846713939e-1, 6.4493406684822643647e-1},
    {3.7, 1.4280723266653881292, 1.1671535393615114409, 3.1003785767003830216e-1},
    {9.99, 1.277931521435019336e+1, 2.250700372831201122, 1.0527695014824178439e-1},
    {10, 1.2801827480081469611e+1, 2.2517525890667211076, 1.0516633568168574612e-1},
    {10.5, 1.3940625219403763633e+1, 2.3030010342976863753, 9.9916956059126733204e-2},
    {17, 3.0671860106080672804e+1, 2.8035133283274603684, 6.0587533403239361782e-2},
    {123.25, 4.6861448295051664423e+2, 4.8101525319648188803, 8.1465944560802649872e-3},
    {1e5, 1.0512877089736568949e+6, 1.1512920464961895087e+1, 1.0000050000166666667e-5},
    {1e10, 2.2025850928881058147e+11, 2.302585092989045684e+1, 1.00000000005e-10},
    {1e15, 3.353877639491066891e+16, 3.453877639491068476e+1, 1.0000000000000005e-15},
    {1e100, 2.2925850929940457206e+102, 2.3025850929940456842e+2, 9.999999999999999841e-101},
    {1e300, 6.8977552789821374147e+302, 6.9077552789821370526e+2, 9.999999999999999475e-301},
};

}  // namespace

TEST_CASE("packet log Gamma, psi and psi1 match mpmath from 1e-150 to 1e300") {
  std::vector<double> x;
  for (const Row& r : kMpmath) x.push_back(r.x);
  const Values got = evaluate(x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const Row& r = kMpmath[i];
    INFO("x = " << r.x << ": log Gamma " << got.log_gamma[i] << ", psi " << got.psi[i] << ", psi1 " << got.psi1[i]);
    CHECK(std::abs(got.log_gamma[i] - r.log_gamma) <= 1e-14 * std::max(1.0, std::abs(r.log_gamma)));
    CHECK(std::abs(got.psi[i] - r.psi) <= 2e-15 + 4e-15 * std::abs(r.psi));
    CHECK(std::abs(got.psi1[i] - r.psi1) <= 4e-15 * r.psi1);
  }
}

TEST_CASE("packet log Gamma, psi and psi1 match lgamma_r, digamma and trigamma on a dense grid") {
  // 20,003 points log-uniform over the domain (not a multiple of any SIMD width), and dense grids
  // over 0.5 ... 3.5 (the zeros of log Gamma, psi's root) and around the switch at 10.
  const int n = 20003;
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = std::pow(10.0, -150.0 + 450.0 * i / (n - 1));
  for (int i = 0; i < 3000; ++i) x[i * 6] = 0.5 + i * 0.001;
  for (int i = 0; i < 200; ++i) x[i * 6 + 1] = 9.9 + i * 0.001;
  x[3] = bvi::ad::math::kLogGammaDerivativesMin;
  x[5] = 10.0;
  x[7] = std::nextafter(10.0, 0.0);
  x[n - 1] = bvi::ad::math::kLogGammaDerivativesMax;
  const Values got = evaluate(x);
  double worst[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < n; ++i) {
    int sign = 0;
    const double lg = ::lgamma_r(x[i], &sign), psi = bvi::ad::math::digamma(x[i]), psi1 = bvi::math::trigamma(x[i]);
    const double err[3] = {std::abs(got.log_gamma[i] - lg) / std::max(1.0, std::abs(lg)),
                           std::abs(got.psi[i] - psi) / (1.0 + std::abs(psi)), std::abs(got.psi1[i] - psi1) / psi1};
    for (int k = 0; k < 3; ++k) worst[k] = std::max(worst[k], err[k]);
    // log Gamma: 2e-14, the shift's cancellation near x = 3 with a packet log of an ulp or two (see
    // test_special_functions.cpp; 1.03e-14 at x = 3.016 without FMA, in the sanitizer tree).
    if (!(err[0] <= 2e-14 && err[1] <= 4e-15 && err[2] <= 8e-15))
      FAIL_CHECK("x = " << x[i] << ": " << got.log_gamma[i] << ", " << got.psi[i] << ", " << got.psi1[i] << " against "
                        << lg << ", " << psi << ", " << psi1);
  }
  MESSAGE("largest differences: log Gamma " << worst[0] << ", psi " << worst[1] << ", psi1 " << worst[2]);
}

}  // namespace test_log_gamma_derivatives
