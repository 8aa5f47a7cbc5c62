// The inverse CDF that draws the count replicates of predict --replicates, against scipy.stats'
// ppf (scipy 1.10.1: poisson(mu).ppf(u), binom(n, p).ppf(u), nbinom(phi, phi / (phi + mu)).ppf(u)),
// and the Bernoulli and normal draws against their closed forms.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "models/replicates.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_replicates {

using bvi::models::count_quantile;
using bvi::models::PredictFamily;
using bvi::models::replicate_value;

PredictFamily family(const char* name) {
  bool ok = false;
  const PredictFamily f = PredictFamily::named(name, &ok);
  REQUIRE(ok);
  return f;
}

const std::vector<double> kU = {0.001, 0.3, 0.5, 0.9, 0.9999};

void check_quantiles(const char* name, double eta, double trials, double scale,
                     const std::vector<double>& want) {
  const PredictFamily f = family(name);
  for (std::size_t k = 0; k < kU.size(); ++k) {
    CAPTURE(name);
    CAPTURE(kU[k]);
    CHECK(count_quantile(f, eta, trials, scale, kU[k]) == want[k]);
  }
}

TEST_CASE("replicates: count inverse CDFs equal scipy's ppf") {
  check_quantiles("poisson_log", std::log(3.7), 0, 1, {0, 3, 4, 6, 13});
  check_quantiles("poisson_log", std::log(5e5), 0, 1, {497816, 499629, 500000, 500906, 502632});
  check_quantiles("binomial_logit", 0.4, 12, 1, {2, 6, 7, 9, 12});
  check_quantiles("negative_binomial_log", std::log(25.0), 0, 0.7, {0, 6, 14, 63, 300});
  check_quantiles("negative_binomial_log", std::log(200.0), 0, 15, {73, 169, 195, 271, 460});
}

TEST_CASE("replicates: limits of the count families") {
  CHECK(count_quantile(family("binomial_logit"), 800, 7, 1, 0.5) == 7);  // p = 1
  CHECK(count_quantile(family("binomial_logit"), -800, 7, 1, 0.5) == 0);
  CHECK(count_quantile(family("binomial_logit"), 0.3, 0, 1, 0.5) == 0);  // no trials
  CHECK(count_quantile(family("poisson_log"), -800, 0, 1, 0.999) == 0);  // mu = 0
  CHECK(count_quantile(family("poisson_log"), std::log(3.7), 0, 1, 1.0) >= 13);
  CHECK_THROWS_AS(count_quantile(family("poisson_log"), 30, 0, 1, 0.5), std::domain_error);  // e^30
}

TEST_CASE("replicates: Bernoulli is u <= p, normal is eta + sigma z") {
  const PredictFamily logit = family("bernoulli_logit"), probit = family("bernoulli_probit");
  // sigmoid(0.5) = 0.6224593312018546, Phi(0.5) = 0.6914624612740131
  CHECK(replicate_value(logit, 0.5, 0, 1, 0.6224) == 1);
  CHECK(replicate_value(logit, 0.5, 0, 1, 0.6225) == 0);
  CHECK(replicate_value(probit, 0.5, 0, 1, 0.6914) == 1);
  CHECK(replicate_value(probit, 0.5, 0, 1, 0.6915) == 0);
  CHECK(replicate_value(family("normal"), 1.5, 0, 2.0, -0.25) == 1.0);
}

TEST_CASE("replicates: gamma variates have the gamma's moments, and the beta's two streams are independent") {
  // Gamma(a, 1): mean a, variance a, Var of the sample variance ~ (2 a^2 + 6 a) / n; E[log G] =
  // digamma(a), Var[log G] = trigamma(a) (scipy.special 1.10.1). Below shape 1 the variate is
  // G_{a+1} U^(1/a), made in logs. Tolerance: 5 standard errors.
  struct Case {
    double shape, digamma, trigamma;
  };
  const Case cases[] = {{0.3, -3.502524222200133, 12.245364546107734},
                        {1.0, -0.5772156649015329, 1.6449340668482266},
                        {4.5, 1.388870926359529, 0.24872510303901035},
                        {60.0, 4.085988081383538, 0.01680632711763539}};
  const int n = 20000;
  for (const Case& c : cases) {
    INFO("shape " << c.shape);
    Eigen::ArrayXd g(n), lg(n), other(n);
    for (int k = 0; k < n; ++k) {
      lg[k] = bvi::models::log_standard_gamma(c.shape, 7, 3, static_cast<std::uint64_t>(k), 0);
      other[k] = bvi::models::log_standard_gamma(c.shape, 7, 3, static_cast<std::uint64_t>(k), 1);
    }
    g = lg.exp();
    const double a = c.shape, mean = g.mean(), var = (g - mean).square().sum() / (n - 1);
    CHECK(std::abs(mean - a) <= 5 * std::sqrt(a / n));
    CHECK(std::abs(var - a) <= 5 * std::sqrt((2 * a * a + 6 * a) / n));
    CHECK(std::abs(lg.mean() - c.digamma) <= 5 * std::sqrt(c.trigamma / n));
    const double r = ((lg - lg.mean()) * (other - other.mean())).sum() /
                     std::sqrt((lg - lg.mean()).square().sum() * (other - other.mean()).square().sum());
    CHECK(std::abs(r) <= 5 / std::sqrt(double(n)));
  }
  CHECK_THROWS_AS(bvi::models::log_standard_gamma(0.0, 7, 0, 0, 0), std::domain_error);
}

}  // namespace test_replicates
