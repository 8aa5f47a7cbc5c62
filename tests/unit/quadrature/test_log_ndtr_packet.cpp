// The probit kernel's SIMD path (LogNdtrKernel::values on whole packets): log Phi(x), r = phi/Phi
// and -r (x + r) against long-double references written here from erfcl, over the lower tail
// down to -37 (where the scalar series takes over below -20, in the same packet or not), the body,
// and the upper tail where log Phi is as small as 1e-300 (the packet path must keep its relative
// accuracy there); then the Gaussian expectations of a whole sub-block of probit rows, which go
// through the packets, against the mpmath table of test_gaussian_expectation.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "models/likelihoods/expectation_kernels.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_log_ndtr_packet {

using namespace bvi;

namespace {

struct Reference {
  long double f0, f1, f2;
};

// log Phi(x) = log(erfc(-x/sqrt 2)/2), or log1p(-erfc(x/sqrt 2)/2) for x > 0; r = phi/Phi; -r(x + r).
Reference reference(double xd) {
  const long double x = xd, k = 0.707106781186547524400844362104849039L;
  const long double f0 = x > 0 ? std::log1p(-0.5L * std::erfc(x * k)) : std::log(0.5L * std::erfc(-x * k));
  const long double r = std::exp(-0.5L * x * x - 0.918938533204672741780329736405617639L - f0);
  return {f0, r, -r * (x + r)};
}

void check_rel(double got, long double want, double x, int which, double rel) {
  INFO("x = " << x << " f^(" << which << ") got " << got << " want " << static_cast<double>(want));
  CHECK(std::abs(static_cast<long double>(got) - want) <= rel * std::abs(want) + 1e-300L);
}

struct PointReference {
  const char* kernel;
  double a, s, e0, e1, e2;
};

const PointReference kTable[] = {
#include "expectation_reference.inc"
};

}  // namespace

TEST_CASE("the probit kernel's packets match long-double log Phi, r and -r(x + r)") {
  std::vector<double> x;
  for (double v = -36.9; v < 37.0; v += 0.173) x.push_back(v);  // lower tail to upper tail
  for (double v : {-20.0, -19.999, -1e-8, -0.0, 0.0, 1e-300, 1e-8, 8.1, 30.0, 37.5}) x.push_back(v);
  // The order shuffled so most packets mix lanes of both signs and of both sides of -20.
  std::vector<double> mixed(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) mixed[i] = x[(i * 37) % x.size()];
  REQUIRE(std::gcd<std::size_t>(37, x.size()) == 1);
  const auto n = static_cast<Eigen::Index>(mixed.size());
  std::vector<double> f0(n), f1(n), f2(n);
  models::LogNdtrKernel{}.values(mixed.data(), n, f0.data(), f1.data(), f2.data());
  for (Eigen::Index i = 0; i < n; ++i) {
    const Reference want = reference(mixed[i]);
    // Upper tail: log Phi and r are e^{-x^2/2} times smooth factors, and the exponent's rounding
    // (half an ulp of x^2/2) is relative error in them: x^2 ulps. -r(x + r) loses |x| / (x + r)
    // ulps to cancellation in the lower tail: 20 x 20 at x = -20.
    const double x2 = mixed[i] * mixed[i];
    const double upper = mixed[i] > 1 ? 4e-16 * std::max(25.0, x2) : 1e-14;
    check_rel(f0[i], want.f0, mixed[i], 0, upper);
    check_rel(f1[i], want.f1, mixed[i], 1, upper);
    check_rel(f2[i], want.f2, mixed[i], 2, mixed[i] < -1 ? 1e-12 : std::max(upper, 2e-14));
  }
}

TEST_CASE("a NaN lane of the probit kernel stays NaN and the other lanes of its packet are exact") {
  std::vector<double> x = {0.3, -1.2, std::nan(""), 2.5, -0.7, 5.0, -3.0, 0.1};
  std::vector<double> f0(8), f1(8), f2(8);
  models::LogNdtrKernel{}.values(x.data(), 8, f0.data(), f1.data(), f2.data());
  for (int i = 0; i < 8; ++i) {
    if (i == 2) {
      CHECK(std::isnan(f0[i]));
      continue;
    }
    const Reference want = reference(x[i]);
    check_rel(f0[i], want.f0, x[i], 0, 1e-14);
    check_rel(f1[i], want.f1, x[i], 1, 1e-14);
  }
}

TEST_CASE("a sub-block of probit rows at once (the packet path) matches the mpmath expectations") {
  std::vector<double> m, v;
  std::vector<const PointReference*> refs;
  for (const PointReference& r : kTable)
    if (std::string(r.kernel) != "softplus") {
      m.push_back(r.a);
      v.push_back(r.s * r.s);
      refs.push_back(&r);
    }
  REQUIRE(refs.size() >= 16);
  quadrature::ExpectationScratch s;
  const auto n = static_cast<Eigen::Index>(m.size());
  std::vector<double> e0(n), e1(n), e2(n);
  quadrature::gaussian_expectations(models::LogNdtrKernel{}, models::LogNdtrKernel::tiers(), m.data(),
                                    v.data(), n, e0.data(), e1.data(), e2.data(), s);
  for (Eigen::Index i = 0; i < n; ++i) {
    const PointReference& r = *refs[i];
    INFO("a = " << r.a << " s = " << r.s);
    CHECK(std::abs(e0[i] - r.e0) <= 1e-10 * std::abs(r.e0) + 1e-30);
    CHECK(std::abs(e1[i] - r.e1) <= 1e-10 * std::abs(r.e1) + 1e-30);
    CHECK(std::abs(e2[i] - r.e2) <= 1e-10 * std::abs(r.e2) + 1e-30);
  }
}

}  // namespace test_log_ndtr_packet
