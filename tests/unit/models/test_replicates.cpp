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

}  // namespace test_replicates
