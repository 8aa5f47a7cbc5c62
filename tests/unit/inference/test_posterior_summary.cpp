// Per-parameter summaries on the constrained scale against closed forms (the lognormal's moments
// and quantiles, as scipy.stats.lognorm gives them) and, for interval bounds, against Simpson's
// rule on a fine grid written here (the code under test uses adaptive Gauss-Kronrod).
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "inference/families/meanfield.hpp"
#include "inference/posterior_summary.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_posterior_summary {

using namespace bvi;

namespace {

ad::ColumnTransform bound(ad::Bound b, double lower, double upper) {
  ad::ColumnTransform t;
  t.bound = b;
  t.lower = lower;
  t.upper = upper;
  return t;
}

// E[f(zeta)] for zeta ~ N(mu, sd^2) by composite Simpson over mu +- 12 sd.
template <class F>
double simpson_expectation(F f, double mu, double sd) {
  const int n = 20000;  // even
  const double a = -12.0, h = 24.0 / n;
  double s = 0.0;
  for (int i = 0; i <= n; ++i) {
    const double z = a + i * h;
    const double w = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
    s += w * f(mu + sd * z) * std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
  }
  return s * h / 3.0;
}

}  // namespace

TEST_CASE("constrained_moments: lower and upper bounds are shifted lognormals") {
  const double mu = 0.3, sd = 0.7, v = sd * sd;
  // scipy.stats.lognorm(s=sd, scale=exp(mu)).mean(), .std()
  const double m = std::exp(mu + v / 2), s = std::sqrt((std::exp(v) - 1) * std::exp(2 * mu + v));
  const auto [ml, sl] = vi::constrained_moments(bound(ad::Bound::lower, 2.0, 0.0), mu, sd);
  CHECK(ml == doctest::Approx(2.0 + m).epsilon(1e-14));
  CHECK(sl == doctest::Approx(s).epsilon(1e-14));
  const auto [mu_, su] = vi::constrained_moments(bound(ad::Bound::upper, 0.0, -1.0), mu, sd);
  CHECK(mu_ == doctest::Approx(-1.0 - m).epsilon(1e-14));
  CHECK(su == doctest::Approx(s).epsilon(1e-14));
}

TEST_CASE("constrained_moments: an interval bound's moments against Simpson's rule") {
  for (const double mu : {-3.0, 0.0, 0.8, 6.0})
    for (const double sd : {1e-3, 0.2, 1.5, 4.0}) {
      const double a = -1.0, b = 3.0;
      auto x = [&](double z) { return a + (b - a) / (1.0 + std::exp(-z)); };
      const double m = simpson_expectation(x, mu, sd);
      const double m2 = simpson_expectation([&](double z) { return (x(z) - m) * (x(z) - m); }, mu, sd);
      const auto [mq, sq] = vi::constrained_moments(bound(ad::Bound::interval, a, b), mu, sd);
      INFO("mu = " << mu << ", sd = " << sd);
      CHECK(mq == doctest::Approx(m).epsilon(1e-10));
      CHECK(sq == doctest::Approx(std::sqrt(m2)).epsilon(1e-8));
    }
}

TEST_CASE("constrained_moments: no transform, and a correlation block is refused") {
  const auto [m, s] = vi::constrained_moments(ad::ColumnTransform{}, -0.4, 2.5);
  CHECK(m == -0.4);
  CHECK(s == 2.5);
  CHECK_THROWS_AS(vi::constrained_moments(bound(ad::Bound::cholesky_corr, 0, 0), 0.0, 1.0), std::invalid_argument);
}

TEST_CASE("summarize_parameters: quantiles through the transform, upper bounds reversed") {
  vi::MeanField q(3);
  q.params() << 0.5, 0.1, -0.2, std::log(0.3), std::log(0.5), std::log(2.0);
  const std::vector<ad::ColumnTransform> t = {ad::ColumnTransform{}, bound(ad::Bound::lower, 1.0, 0.0),
                                              bound(ad::Bound::upper, 0.0, 4.0)};
  const auto out = vi::summarize_parameters(q, {"a", "b", "c"}, {"", "x", ""}, t);
  REQUIRE(out.size() == 3);
  const double z = 1.6448536269514722;  // scipy.stats.norm.ppf(0.95)
  CHECK(out[0].mean == 0.5);
  CHECK(out[0].sd == doctest::Approx(0.3));
  CHECK(out[0].q05 == doctest::Approx(0.5 - z * 0.3));
  CHECK(out[0].q95 == doctest::Approx(0.5 + z * 0.3));
  CHECK(out[1].label == "x");
  CHECK(out[1].q05 == doctest::Approx(1.0 + std::exp(0.1 - z * 0.5)));
  CHECK(out[1].q50 == doctest::Approx(1.0 + std::exp(0.1)));
  CHECK(out[1].q95 == doctest::Approx(1.0 + std::exp(0.1 + z * 0.5)));
  CHECK(out[1].mean == doctest::Approx(1.0 + std::exp(0.1 + 0.125)));
  // x = 4 - e^zeta: the 5 % quantile comes from zeta's 95 %.
  CHECK(out[2].q05 == doctest::Approx(4.0 - std::exp(-0.2 + z * 2.0)));
  CHECK(out[2].q95 == doctest::Approx(4.0 - std::exp(-0.2 - z * 2.0)));
  CHECK(out[2].q05 < out[2].q50);
  CHECK(out[2].q50 < out[2].q95);
}

}  // namespace test_posterior_summary
