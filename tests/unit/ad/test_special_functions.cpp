// The special functions behind the Student t and gamma densities: digamma against
// scipy.special.digamma (each value cross-checked against mpmath in
// tests/reference/prior_logpdf_table.py, which printed these rows), and the cancellation-free
// forms against mpmath values written here.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "inference/ad/math/log_gamma_array.hpp"
#include "inference/ad/math/special_functions.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_special_functions {

using namespace bvi::ad;

namespace {
struct Point {
  double x, want;
};
const Point kDigamma[] = {
    {1e-300, -9.999999999999999e+299},
    {1e-08, -100000000.57721564},
    {0.10000000000000001, -10.423754940411076},
    {0.5, -1.9635100260214235},
    {1, -0.57721566490153287},
    {1.2, -0.28903989659218837},
    {1.3, -0.16919088886679962},
    {1.3999999999999999, -0.061384544585116239},
    {1.46, -0.0015805619870834522},
    {1.4616321449683622, -9.2412655217294273e-17},
    {1.4616321449683625, 1.2245374622004065e-16},
    {1.5, 0.03648997397857652},
    {1.6000000000000001, 0.12604745277347634},
    {1.6499999999999999, 0.16811207758432775},
    {1.7, 0.20854787487349394},
    {2, 0.42278433509846713},
    {2.5, 0.70315664064524319},
    {3, 0.92278433509846713},
    {5.5, 1.611093148581751},
    {9.9900000000000002, 2.2507003728312012},
    {10, 2.2517525890667209},
    {10.5, 2.3030010342976865},
    {31, 3.4177714660188583},
    {100, 4.6001618527380881},
    {100000, 11.512920464961896},
    {1000000000000000, 34.538776394910684},
    {1.0000000000000001e+300, 690.77552789821368},
    {-0.5, 0.036489973978576513},
    {-1.5, 0.70315664064524341},
    {-2.25, 4.1585835646579721},
    {-10.300000000000001, 4.6624034935820875},
};
}  // namespace

TEST_CASE("digamma against scipy.special.digamma") {
  for (const auto& p : kDigamma) {
    INFO("x = " << p.x << ": got " << math::digamma(p.x) << ", want " << p.want);
    // A few ulps relative for x > 0, plus 1e-15 absolute where the recurrence psi(x) =
    // psi(x + n) - sum 1/(x + k) cancels (psi(1.7) = 0.21 from terms near 2.3); for x < 0 the
    // reflection is accurate absolutely (see the header).
    const double tol = p.x > 0 ? 4e-16 * std::abs(p.want) + 1e-15 : 1e-14;
    CHECK(std::abs(math::digamma(p.x) - p.want) <= tol);
  }
  CHECK(std::isnan(math::digamma(0.0)));
  CHECK(std::isnan(math::digamma(-3.0)));
  CHECK(std::isnan(math::digamma(std::numeric_limits<double>::quiet_NaN())));
}

TEST_CASE("Student t constants: log Gamma(a + 1/2) - log Gamma(a) and its derivative excess") {
  // prior_logpdf_table.py half_step (mpmath): loggamma(a + 1/2) - loggamma(a), psi(a + 1/2) - psi(a) - 1/(2a).
  struct Ref {
    double a, log_ratio, excess;
  };
  const Ref refs[] = {
      {0.25, -1.084741573266782, 1.1415926535897933},
      {0.5, -0.57236494292470008, 0.38629436111989063},
      {1.5, 0.12078223763524522, 0.052961027786557285},
      {7.9, 1.0176191084862427, 0.0019989042150586121},
      {15.99, 1.3781656500193205, 0.00048865362416894344},
      {16.0, 1.3784831311999231, 0.00048804329516312871},
      {20.0, 1.491616787331304, 0.00031240246549753124},
      {50.0, 1.9535115443757411, 4.9997500499787654e-05},
      {1000.0, 3.453752639496277, 1.2499998437500781e-07},
      {500000.0, 6.5611814387021647, 4.9999999999974998e-13},
      {500000000000.0, 13.468936967684051, 4.9999999999999996e-25},
      {5e+16, 19.225399700169415, 4.9999999999999996e-35},
  };
  for (const auto& r : refs) {
    INFO("a = " << r.a);
    CHECK(math::log_gamma_half_step(r.a) == doctest::Approx(r.log_ratio).epsilon(1e-14));
    CHECK(math::digamma_half_step_excess(r.a) == doctest::Approx(r.excess).epsilon(r.a < 16 ? 1e-10 : 1e-14));
  }
}

TEST_CASE("log1p_sq_div: log(1 + z^2/nu) without overflow") {
  CHECK(math::log1p_sq_div(0.0, 3.0) == 0.0);
  CHECK(math::log1p_sq_div(1e-200, 1.0) == 0.0);
  CHECK(math::log1p_sq_div(2.0, 4.0) == doctest::Approx(std::log(2.0)).epsilon(1e-15));
  // z = 1e200, nu = 3: 400 log 10 - log 3 (+ 3e-400).
  CHECK(math::log1p_sq_div(1e200, 3.0) == doctest::Approx(400 * std::log(10.0) - std::log(3.0)).epsilon(1e-15));
  CHECK(math::log1p_sq_div(-std::numeric_limits<double>::infinity(), 3.0) == std::numeric_limits<double>::infinity());
}

TEST_CASE("log_gamma_array: Stirling's series with a shift of 10, against lgamma_r from 1e-300 to 1e15") {
  // 20,003 points (not a multiple of any SIMD width), log-uniform over the range, with a dense grid
  // around the zeros at 1 and 2 and the switch at 10; within 2e-14 of glibc's lgamma_r, relative
  // above 1 in size, absolute below. Below 10, log Gamma(x) = log Gamma(x + 10) - log P with both
  // terms near 18 for x near 3 (a result near 0.7): an ulp of each is 5e-15 of the result, and
  // Eigen's packet log is within an ulp or two (7.7e-15 measured with AVX-512 and FMA, 1.03e-14 at
  // x = 3.016 in the sanitizer tree's SSE2 build).
  const int n = 20003;
  Eigen::ArrayXd x(n), out(n), p(n), z(n);
  for (int i = 0; i < n; ++i) x[i] = std::pow(10.0, -300.0 + 315.0 * i / (n - 1));
  for (int i = 0; i < 3000; ++i) x[i * 6] = 0.5 + i * 0.001;       // 0.5 ... 3.5
  for (int i = 0; i < 200; ++i) x[i * 6 + 1] = 9.9 + i * 0.001;    // around 10
  x[3] = math::kLogGammaArrayMin;
  x[5] = 10.0;
  math::log_gamma_array(x, out, p, z);
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    int sign = 0;
    const double want = ::lgamma_r(x[i], &sign);
    const double err = std::abs(out[i] - want) / std::max(1.0, std::abs(want));
    worst = std::max(worst, err);
    if (!(err <= 2e-14)) FAIL_CHECK("x = " << x[i] << ": " << out[i] << " vs lgamma_r " << want);
  }
  MESSAGE("log_gamma_array: largest error " << worst);
}

}  // namespace test_special_functions
