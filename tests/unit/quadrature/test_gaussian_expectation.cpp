// The Gaussian expectations behind the exact method, E f(eta), E f'(eta), E f''(eta) for
// eta ~ N(a, s^2), against mpmath quadrature at 40 digits (expectation_reference.inc, written by
// tests/reference/expectation_table.py): every tier of Gauss–Hermite points and the adaptive rule
// of the widest rows, from sd 0.001 to 60 and means from -80 to 60.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "inference/quadrature/gauss_kronrod.hpp"
#include "models/likelihoods/expectation_kernels.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_gaussian_expectation {

using namespace bvi;

namespace {

struct Reference {
  const char* kernel;
  double a, s, e0, e1, e2;
};

const Reference kTable[] = {
#include "expectation_reference.inc"
};

template <class Kernel>
void expectations(const std::vector<double>& m, const std::vector<double>& v, std::vector<double>& e0,
                  std::vector<double>& e1, std::vector<double>& e2) {
  quadrature::ExpectationScratch s;
  const auto n = static_cast<Eigen::Index>(m.size());
  e0.assign(n, 0);
  e1.assign(n, 0);
  e2.assign(n, 0);
  quadrature::gaussian_expectations(Kernel{}, Kernel::tiers(), m.data(), v.data(), n, e0.data(), e1.data(),
                                    e2.data(), s);
}

void check_close(double got, double want, const Reference& r, int which) {
  INFO(r.kernel << " a = " << r.a << " s = " << r.s << " E f^(" << which << ")");
  // Relative 1e-10, down to expectations of 1e-20: below that (a row the model predicts to within
  // e^-46) no sum over rows can notice an absolute error of 1e-30.
  CHECK(std::abs(got - want) <= 1e-10 * std::abs(want) + 1e-30);
}

}  // namespace

TEST_CASE("Gaussian expectations of softplus and log Phi match mpmath, one row at a time") {
  for (const Reference& r : kTable) {
    std::vector<double> e0, e1, e2;
    if (std::string(r.kernel) == "softplus")
      expectations<models::SoftplusKernel>({r.a}, {r.s * r.s}, e0, e1, e2);
    else
      expectations<models::LogNdtrKernel>({r.a}, {r.s * r.s}, e0, e1, e2);
    check_close(e0[0], r.e0, r, 0);
    check_close(e1[0], r.e1, r, 1);
    check_close(e2[0], r.e2, r, 2);
  }
}

TEST_CASE("a sub-block of rows with mixed widths gives each row its own accuracy") {
  // All softplus rows at once: the sub-block's rule is the one its widest ordinary row needs,
  // and the widest rows go adaptive; every row must still match the table.
  std::vector<double> m, v;
  std::vector<const Reference*> refs;
  for (const Reference& r : kTable)
    if (std::string(r.kernel) == "softplus") {
      m.push_back(r.a);
      v.push_back(r.s * r.s);
      refs.push_back(&r);
    }
  std::vector<double> e0, e1, e2;
  expectations<models::SoftplusKernel>(m, v, e0, e1, e2);
  for (std::size_t i = 0; i < refs.size(); ++i) {
    check_close(e0[i], refs[i]->e0, *refs[i], 0);
    check_close(e1[i], refs[i]->e1, *refs[i], 1);
    check_close(e2[i], refs[i]->e2, *refs[i], 2);
  }
}

TEST_CASE("the reflected, tilted expectations from one rule's nodes match mpmath") {
  // t = E f(-x) for x ~ N(m + shift, v) is the table's E f at (a, s) when m = -a - shift: rows at
  // each tier's largest tilt, both signs, and a tenth of it, beside e = E f(x), x ~ N(m, v), which
  // must equal the plain expectations' bits. Past the last tier or the tier's tilt: refused.
  const auto& tiers = models::SoftplusKernel::tiers();
  std::vector<double> m, v, shift;
  std::vector<const Reference*> refs;
  for (const Reference& r : kTable) {
    if (std::string(r.kernel) != "softplus" || r.s > tiers.back().max_sd) continue;
    std::size_t t = 0;
    while (tiers[t].max_sd < r.s) ++t;
    for (double b : {-1.0, -0.1, 0.1, 1.0}) {
      const double d = b * tiers[t].max_tilt * r.s;
      m.push_back(-r.a - d);
      v.push_back(r.s * r.s);
      shift.push_back(d);
      refs.push_back(&r);
    }
  }
  const auto n = static_cast<Eigen::Index>(m.size());
  REQUIRE(n > 100);
  quadrature::ExpectationScratch s;
  // One row at a time: a row's rule is the one its own sd needs.
  for (Eigen::Index i = 0; i < n; ++i) {
    double e[3], t[3];
    REQUIRE(quadrature::gaussian_expectations_reflected_tilt(
        models::SoftplusKernel{}, tiers, &m[i], &v[i], &shift[i], 1, e, e + 1, e + 2, t, t + 1, t + 2, s));
    check_close(t[0], refs[i]->e0, *refs[i], 0);
    check_close(t[1], refs[i]->e1, *refs[i], 1);
    check_close(t[2], refs[i]->e2, *refs[i], 2);
    std::vector<double> p0, p1, p2;
    expectations<models::SoftplusKernel>({m[i]}, {v[i]}, p0, p1, p2);
    CHECK(e[0] == p0[0]);
    CHECK(e[1] == p1[0]);
    CHECK(e[2] == p2[0]);
  }
  // Refused: a tilt past its tier's, an sd past every tier, sd 0 and a shift.
  const double wide = tiers.back().max_sd * 2.0, narrow = tiers.front().max_sd;
  for (const auto& [var, d] : {std::pair{narrow * narrow, 2.0 * tiers.front().max_tilt * narrow},
                               std::pair{wide * wide, 0.0}, std::pair{0.0, 1e-9}}) {
    const double mean = 0.5;
    double e[3], t[3];
    CHECK_FALSE(quadrature::gaussian_expectations_reflected_tilt(models::SoftplusKernel{}, tiers, &mean, &var,
                                                                 &d, 1, e, e + 1, e + 2, t, t + 1, t + 2, s));
  }
}

TEST_CASE("adaptive Gauss-Kronrod integrates a sharp peak and a kink") {
  // int_{-1}^{1} |x| dx = 1 (kink at 0, given as a breakpoint and not), and
  // int_0^1 1/(1e-4 + x^2) dx = 100 atan(100).
  for (bool cut : {true, false}) {
    const auto r =
        quadrature::integrate_adaptive([](double x, double* o) { o[0] = std::abs(x); }, 1, -1.0, 1.0,
                                       cut ? std::vector<double>{0.0} : std::vector<double>{}, 1e-13, 1e-300);
    CHECK(r.converged);
    CHECK(r.value[0] == doctest::Approx(1.0).epsilon(1e-12));
  }
  const auto r = quadrature::integrate_adaptive([](double x, double* o) { o[0] = 1.0 / (1e-4 + x * x); }, 1,
                                                0.0, 1.0, {}, 1e-13, 1e-300);
  CHECK(r.converged);
  CHECK(r.value[0] == doctest::Approx(100.0 * std::atan(100.0)).epsilon(1e-12));
}

}  // namespace test_gaussian_expectation
