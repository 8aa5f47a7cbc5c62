// The exact samplers behind bayes-vi simulate's responses (models/data/random_variates.hpp),
// tested against closed forms: mean and variance within 5 standard errors (the variance's from
// the sample's fourth central moment, Var(s^2) ~ (m4 - s^4) / n), and a Kolmogorov-Smirnov or
// chi-square goodness-of-fit test at the 0.001 level against the family's CDF or pmf written
// out here (scipy.stats' formulas: erf for Gamma(1/2), the Erlang sum for Gamma(3), the
// polynomial CDF of Beta(2, 3), the Student t's at 1 and 2 degrees of freedom, the Poisson, NB2 and
// binomial pmfs through lgamma).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "inference/rng/uniform_stream.hpp"
#include "models/data/random_variates.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_simulate_variates {

using namespace bvi::data;

namespace {

// n draws, draw i from the uniforms of row i (independent Philox streams).
std::vector<double> draws(int n, std::uint64_t seed, const std::function<double(RowUniforms&)>& one) {
  std::vector<double> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    RowUniforms u(seed, 9, static_cast<std::uint64_t>(i));
    out[static_cast<std::size_t>(i)] = one(u);
  }
  return out;
}

// Mean and variance against the closed forms, 5 standard errors.
void check_moments(const std::vector<double>& x, double mean, double variance) {
  const double n = static_cast<double>(x.size());
  double m = 0;
  for (double v : x) m += v;
  m /= n;
  double m2 = 0, m4 = 0;
  for (double v : x) {
    const double d = (v - m) * (v - m);
    m2 += d;
    m4 += d * d;
  }
  m2 /= n, m4 /= n;
  CAPTURE(mean);
  CAPTURE(variance);
  CAPTURE(m);
  CAPTURE(m2);
  CHECK(std::abs(m - mean) < 5 * std::sqrt(variance / n));
  CHECK(std::abs(m2 - variance) < 5 * std::sqrt((m4 - m2 * m2) / n));
}

// KS distance to a CDF below the 0.001 critical value, 1.95 / sqrt(n).
void check_ks(std::vector<double> x, const std::function<double(double)>& cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, std::abs(f - i / n), std::abs((i + 1) / n - f)});
  }
  CAPTURE(d);
  CHECK(d < 1.95 / std::sqrt(n));
}

// Pearson's chi-square against a pmf on 0, 1, ...: cells merged left to right until each
// expects at least 5, the tail the last cell; below the 0.001 quantile of chi-square(df)
// (Wilson-Hilferty, z = 3.09).
void check_chi_square(const std::vector<double>& x, const std::function<double(int)>& pmf) {
  const double n = static_cast<double>(x.size());
  int top = 0;
  for (double v : x) top = std::max(top, static_cast<int>(v));
  std::vector<double> count(static_cast<std::size_t>(top) + 1);
  for (double v : x) count[static_cast<std::size_t>(v)] += 1;
  std::vector<double> obs, expct;
  double o = 0, e = 0, cum = 0;
  for (int k = 0; k <= top; ++k) {
    o += count[k];
    e += n * pmf(k);
    cum += pmf(k);
    if (e >= 5 && n * (1 - cum) >= 5) {
      obs.push_back(o), expct.push_back(e);
      o = e = 0;
    }
  }
  obs.push_back(o), expct.push_back(e + n * std::max(0.0, 1 - cum));
  double chi2 = 0;
  for (std::size_t i = 0; i < obs.size(); ++i) chi2 += (obs[i] - expct[i]) * (obs[i] - expct[i]) / expct[i];
  const double df = static_cast<double>(obs.size()) - 1;
  REQUIRE(df >= 3);
  const double h = 2 / (9 * df), critical = df * std::pow(1 - h + 3.09 * std::sqrt(h), 3);
  CAPTURE(df);
  CAPTURE(chi2);
  CHECK(chi2 < critical);
}

double poisson_pmf(double mu, int k) {
  return std::exp(k * std::log(mu) - mu - std::lgamma(k + 1.0));
}

}  // namespace

TEST_CASE("RowUniforms continues the stream the logistic response always used") {
  Eigen::MatrixXd u(3, 1);
  bvi::rng::standard_uniform(17, bvi::rng::Purpose::simulation, 2, 0, 40, u);
  for (int r = 0; r < 3; ++r) {
    RowUniforms row(17, 2, 40 + r);
    CHECK(row() == u(r, 0));
  }
  // Past the first four: the next attempt of the same draw, all in (0, 1].
  RowUniforms row(17, 2, 40);
  std::vector<double> first(12);
  for (double& v : first) v = row();
  Eigen::MatrixXd quad(1, 4);
  bvi::rng::standard_uniform(17, bvi::rng::Purpose::simulation, 2, 2, 40, quad);
  for (int k = 0; k < 4; ++k) CHECK(first[8 + k] == quad(0, k));
  for (double v : first) CHECK((v > 0 && v <= 1));
}

TEST_CASE("normal: N(0, 1) moments and KS") {
  const auto x = draws(100000, 1, [](RowUniforms& u) { return normal_variate(u); });
  check_moments(x, 0, 1);
  check_ks(x, [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); });
}

TEST_CASE("gamma: Gamma(a, 1) has mean and variance a, both branches; KS at a = 1/2 and 3") {
  for (double a : {0.05, 0.3, 1.0, 2.5, 30.0}) {
    CAPTURE(a);
    check_moments(draws(50000, 2, [a](RowUniforms& u) { return gamma_variate(a, u); }), a, a);
  }
  // Gamma(1/2) = chi-square(1) / 2: F(x) = erf(sqrt(x)). Gamma(3): 1 - e^-x (1 + x + x^2 / 2).
  check_ks(draws(50000, 3, [](RowUniforms& u) { return gamma_variate(0.5, u); }),
           [](double x) { return std::erf(std::sqrt(x)); });
  check_ks(draws(50000, 4, [](RowUniforms& u) { return gamma_variate(3.0, u); }),
           [](double x) { return 1 - std::exp(-x) * (1 + x + x * x / 2); });
  // Tiny shapes stay finite in logs where the draw itself underflows.
  const auto logs = draws(1000, 5, [](RowUniforms& u) { return log_gamma_variate(0.002, u); });
  for (double l : logs) CHECK(std::isfinite(l));
  CHECK_THROWS_AS(draws(1, 5, [](RowUniforms& u) { return gamma_variate(0.0, u); }), std::invalid_argument);
}

TEST_CASE("beta: Beta(a, b) moments; KS at (2, 3)") {
  // Plain variables, not structured bindings: CAPTURE's lambda cannot capture those in C++17 (clang).
  for (const auto& ab : {std::pair{0.2, 0.5}, std::pair{5.0, 1.5}, std::pair{40.0, 60.0}}) {
    const double a = ab.first, b = ab.second;
    CAPTURE(a);
    CAPTURE(b);
    const double s = a + b;
    const auto x = draws(50000, 6, [a, b](RowUniforms& u) { return beta_variate(a, b, u); });
    check_moments(x, a / s, a * b / (s * s * (s + 1)));
  }
  // Beta(2, 3): pdf 12 x (1 - x)^2, F(x) = 6 x^2 - 8 x^3 + 3 x^4.
  check_ks(draws(50000, 7, [](RowUniforms& u) { return beta_variate(2.0, 3.0, u); }),
           [](double x) { return x * x * (6 - 8 * x + 3 * x * x); });
}

TEST_CASE("student t: T_nu moments at nu = 12; KS at nu = 1 (Cauchy), 2 and 0.4 (symmetry)") {
  // Var T_nu = nu / (nu - 2); nu = 12 has the eighth moment the variance's standard error needs.
  check_moments(draws(50000, 11, [](RowUniforms& u) { return student_t_variate(12.0, u); }), 0, 1.2);
  // Closed-form CDFs (scipy.stats.t): nu = 1, F = 1/2 + atan(t)/pi; nu = 2, F = 1/2 + t / (2 sqrt(2 + t^2)).
  check_ks(draws(50000, 12, [](RowUniforms& u) { return student_t_variate(1.0, u); }),
           [](double t) { return 0.5 + std::atan(t) / M_PI; });
  check_ks(draws(50000, 13, [](RowUniforms& u) { return student_t_variate(2.0, u); }),
           [](double t) { return 0.5 + t / (2 * std::sqrt(2 + t * t)); });
  // nu = 0.4: no closed-form CDF, but symmetric about 0 with F(0) = 1/2, and finite (in logs).
  const auto x = draws(50000, 14, [](RowUniforms& u) { return student_t_variate(0.4, u); });
  double below = 0;
  for (double v : x) {
    CHECK(std::isfinite(v));
    below += v < 0;
  }
  CHECK(std::abs(below / 50000 - 0.5) < 5 * 0.5 / std::sqrt(50000.0));
  CHECK(draws(3, 15, [](RowUniforms& u) { return student_t_variate(INFINITY, u); }) ==
        draws(3, 15, [](RowUniforms& u) { return normal_variate(u); }));
  CHECK_THROWS_AS(draws(1, 5, [](RowUniforms& u) { return student_t_variate(0.0, u); }), std::invalid_argument);
}

TEST_CASE("poisson: mean = variance = mu on both sides of the switch at 10; chi-square") {
  for (double mu : {0.02, 0.7, 4.0, 9.99, 10.0, 37.0, 1e4, 1e12}) {
    CAPTURE(mu);
    check_moments(draws(50000, 8, [mu](RowUniforms& u) { return double(poisson_variate(mu, u)); }), mu, mu);
  }
  for (double mu : {4.0, 37.0, 400.0}) {
    CAPTURE(mu);
    check_chi_square(draws(50000, 9, [mu](RowUniforms& u) { return double(poisson_variate(mu, u)); }),
                     [mu](int k) { return poisson_pmf(mu, k); });
  }
  CHECK(draws(10, 9, [](RowUniforms& u) { return double(poisson_variate(0.0, u)); }) ==
        std::vector<double>(10, 0.0));
  CHECK_THROWS_AS(draws(1, 9, [](RowUniforms& u) { return double(poisson_variate(2e15, u)); }),
                  std::invalid_argument);
}

TEST_CASE("negative binomial: NB2 mean mu, variance mu + mu^2 / phi; chi-square") {
  for (const auto& mp : {std::pair{3.0, 2.0}, std::pair{50.0, 0.5}, std::pair{0.3, 20.0}}) {
    const double mu = mp.first, phi = mp.second;
    CAPTURE(mu);
    CAPTURE(phi);
    check_moments(
        draws(50000, 10,
              [mu, phi](RowUniforms& u) { return double(negative_binomial_variate(mu, phi, u)); }),
        mu, mu + mu * mu / phi);
  }
  // pmf Gamma(k + phi) / (Gamma(phi) k!) (phi / (phi + mu))^phi (mu / (phi + mu))^k.
  const double mu = 6, phi = 1.5;
  check_chi_square(
      draws(50000, 11, [&](RowUniforms& u) { return double(negative_binomial_variate(mu, phi, u)); }),
      [&](int k) {
        return std::exp(std::lgamma(k + phi) - std::lgamma(phi) - std::lgamma(k + 1.0) +
                        phi * std::log(phi / (phi + mu)) + k * std::log(mu / (phi + mu)));
      });
}

TEST_CASE("binomial: mean n p, variance n p (1 - p); chi-square") {
  const int trials = 12;
  const double p = 0.3;
  const auto x = draws(50000, 12, [&](RowUniforms& u) { return double(binomial_variate(trials, p, u)); });
  check_moments(x, trials * p, trials * p * (1 - p));
  check_chi_square(x, [&](int k) {
    return std::exp(std::lgamma(trials + 1.0) - std::lgamma(k + 1.0) - std::lgamma(trials - k + 1.0) +
                    k * std::log(p) + (trials - k) * std::log1p(-p));
  });
}

}  // namespace test_simulate_variates
