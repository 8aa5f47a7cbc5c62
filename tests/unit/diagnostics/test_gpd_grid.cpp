// The Zhang & Stephens fit's grid (psis.cpp's grid_profile_k: packets of grid points, products of
// up to 12 factors with one log per lane, a per-lane fallback to every log where a product leaves
// [1e-280, 1e280], every log again where |k(theta)| < 1e-2, rcp14 for the rounding correction)
// against R loo 2.5.1's gpdfit written out here in long double with a log1p per term: tails of
// every shape, lengths that leave partial packets and blocks, and tails heavy enough that the
// products overflow.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "inference/diagnostics/psis.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_gpd_grid {

using bvi::diagnostics::fit_generalized_pareto;
using bvi::diagnostics::GeneralizedPareto;
using Eigen::Index;
using Eigen::VectorXd;

// loo:::gpdfit(x, wip = FALSE) in long double: theta_j = 1/x[N] + (1 - sqrt(M/(j - 0.5)))/3/xstar,
// l_j = N (log(-theta_j / k_j) - k_j - 1) with k_j = mean(log1p(-theta_j x)), weights exp(l - lse),
// theta_hat = sum theta w, k = mean(log1p(-theta_hat x)), sigma = -k / theta_hat.
struct Reference {
  long double k, sigma;
};

Reference gpdfit_long_double(std::vector<long double> x) {
  std::sort(x.begin(), x.end());
  const auto n = static_cast<long>(x.size());
  const long m = 30 + static_cast<long>(std::floor(std::sqrt(static_cast<double>(n))));
  const long double xstar = x[static_cast<std::size_t>(std::floor(n / 4.0 + 0.5)) - 1];
  const auto mean_log1p = [&](long double theta) {
    long double s = 0;
    for (long double v : x) s += log1pl(-theta * v);
    return s / static_cast<long double>(n);
  };
  std::vector<long double> theta(static_cast<std::size_t>(m)), l(static_cast<std::size_t>(m));
  long double lmax = -INFINITY;
  for (long j = 0; j < m; ++j) {
    const long double t = 1.0L / x.back() + (1.0L - sqrtl(static_cast<long double>(m) / (j + 0.5L))) / 3.0L / xstar;
    const long double k = mean_log1p(t);
    theta[static_cast<std::size_t>(j)] = t;
    l[static_cast<std::size_t>(j)] = static_cast<long double>(n) * (logl(-t / k) - k - 1.0L);
    lmax = std::max(lmax, l[static_cast<std::size_t>(j)]);
  }
  long double wsum = 0, tsum = 0;
  for (long j = 0; j < m; ++j) {
    const long double w = expl(l[static_cast<std::size_t>(j)] - lmax);
    wsum += w;
    tsum += theta[static_cast<std::size_t>(j)] * w;
  }
  const long double theta_hat = tsum / wsum;
  const long double k = mean_log1p(theta_hat);
  return {k, -k / theta_hat};
}

TEST_CASE("GPD grid by packets equals gpdfit in long double, products overflowing included") {
  std::mt19937_64 rng(20261205);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  int cases = 0;
  for (double shape : {-0.8, -0.2, 0.0, 0.3, 0.7, 1.5, 6.0, 25.0}) {
    for (Index n : {5, 13, 95, 96, 97, 250}) {
      for (int rep = 0; rep < 3; ++rep) {
        VectorXd x(n);
        std::vector<long double> xl(static_cast<std::size_t>(n));
        for (Index i = 0; i < n; ++i) {
          const double p = unif(rng);
          // GPD(shape, sigma = 1) quantile; shape 0 the exponential.
          x[i] = shape == 0.0 ? -std::log1p(-p) : std::expm1(-shape * std::log1p(-p)) / shape;
          xl[static_cast<std::size_t>(i)] = x[i];
        }
        CAPTURE(shape);
        CAPTURE(n);
        CAPTURE(rep);
        const GeneralizedPareto got = fit_generalized_pareto(x, /*weakly_informative_prior=*/false);
        const Reference want = gpdfit_long_double(xl);
        // k-hat is ill-conditioned in x and in the grid's sums (an ulp moves it by ~1e-14): 1e-10
        // relative to max(1, |k|) is far above the rounding and far below any wrong lane or block.
        const double k_scale = std::max(1.0, std::abs(static_cast<double>(want.k)));
        CHECK(std::abs(got.k - static_cast<double>(want.k)) <= 1e-10 * k_scale);
        CHECK(got.sigma == doctest::Approx(static_cast<double>(want.sigma)).epsilon(1e-10));
        ++cases;
      }
    }
  }
  CHECK(cases == 8 * 6 * 3);
}

}  // namespace test_gpd_grid
