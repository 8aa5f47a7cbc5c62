// PSIS and its Pareto k-hat against independent references: the R package loo 2.5.1 (the
// reference implementation; psis_reference.R beside this file prints every number pasted here),
// closed forms (GPD quantiles, the tail shape of normal importance ratios), the known sampling
// error of the GPD shape estimate, and a numpy re-derivation where loo has no answer.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "inference/diagnostics/psis.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_psis {

using namespace bvi::diagnostics;
using Eigen::Index;
using Eigen::VectorXd;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// Uniform [0, 1) and standard normal draws built from the raw mt19937_64 stream, whose output the
// standard fixes, rather than std::*_distribution, whose output it leaves to the library: the
// simulated data are then the same everywhere.
struct Rng {
  explicit Rng(std::uint64_t seed) : g(seed) {}
  double uniform() { return static_cast<double>(g() >> 11) * 0x1.0p-53; }
  double normal() {  // Box-Muller; 1 - u is in (0, 1]
    const double r = std::sqrt(-2.0 * std::log(1.0 - uniform()));
    return r * std::cos(2.0 * M_PI * uniform());
  }
  std::mt19937_64 g;
};

double log_sum_exp(const VectorXd& v) {
  const double m = v.maxCoeff();
  return m + std::log((v.array() - m).exp().sum());
}

// The deterministic log ratios of psis_reference.R: a Pareto-like tail (r ~ v^-0.6), a wiggle so
// it is not exactly Pareto, an offset that would overflow exp(), and the draws permuted.
VectorXd ratios(Index S, Index mult) {
  VectorXd lr(S);
  for (Index i = 0; i < S; ++i) {
    const double v = (static_cast<double>((i * mult) % S) + 0.5) / static_cast<double>(S);
    lr[i] = -0.6 * std::log(v) + 0.3 * std::sin(7.0 * static_cast<double>(i)) + 1234.5;
  }
  return lr;
}

// Draws by ascending log ratio.
std::vector<Index> ascending(const VectorXd& lr) {
  std::vector<Index> o(static_cast<std::size_t>(lr.size()));
  std::iota(o.begin(), o.end(), Index{0});
  std::stable_sort(o.begin(), o.end(), [&](Index a, Index b) { return lr[a] < lr[b]; });
  return o;
}

// The properties every PSIS weight vector must have, checked against the raw log ratios:
// normalized; non-decreasing in the raw ratio; the raw ratio kept (up to the common
// normalization) at and below the threshold u; tail weights between u and the largest raw ratio.
void check_smoothed_weights(const VectorXd& lr, const VectorXd& lw, const ParetoFit& fit) {
  REQUIRE(lw.size() == lr.size());
  CHECK(std::abs(log_sum_exp(lw)) < 1e-12);
  const std::vector<Index> o = ascending(lr);
  for (std::size_t i = 1; i < o.size(); ++i) CHECK(lw[o[i]] >= lw[o[i - 1]]);
  const Index S = lr.size(), n = fit.tail_length;
  const double u = lr[o[static_cast<std::size_t>(S - n - 1)]];
  const double shift = lw[o[0]] - lr[o[0]];  // the normalization every untouched draw shares
  for (std::size_t i = 0; i < o.size(); ++i) {
    const double raw = lr[o[i]], now = lw[o[i]] - shift;
    if (raw <= u) {
      CHECK(now == doctest::Approx(raw).epsilon(1e-12));
    } else {
      CHECK(now >= u - 1e-9);
      CHECK(now <= lr.maxCoeff() + 1e-9);
    }
  }
}
}  // namespace

TEST_CASE("tail length is loo's ceil(min(S / 5, 3 sqrt(S)))") {
  // 3 sqrt(1000) = 94.87, 3 sqrt(1e5) = 948.7; S / 5 is the smaller below S = 225.
  CHECK(psis_tail_length(1000) == 95);
  CHECK(psis_tail_length(100000) == 949);
  CHECK(psis_tail_length(100) == 20);
  CHECK(psis_tail_length(225) == 45);
  CHECK(psis_tail_length(226) == 46);  // 3 sqrt(226) = 45.1
  CHECK(psis_tail_length(21) == 5);
  CHECK(psis_tail_length(20) == 4);
  CHECK(psis_tail_length(1) == 1);
  CHECK(psis_tail_length(0) == 0);
}

TEST_CASE("GPD quantile inverts the CDF") {
  // F(x) = 1 - (1 + k x / sigma)^(-1/k) = -expm1(-log1p(k x / sigma) / k) (the second form
  // keeps its accuracy at k = 1e-12), and 1 - exp(-x / sigma) at k = 0.
  for (double k : {-0.9, -0.2, 0.0, 1e-12, 0.5, 0.8, 2.0}) {
    for (double p : {1e-6, 0.1, 0.5, 0.9, 0.999}) {
      const double sigma = 1.7, x = generalized_pareto_quantile(p, k, sigma);
      const double cdf = k == 0.0 ? -std::expm1(-x / sigma) : -std::expm1(-std::log1p(k * x / sigma) / k);
      CHECK(cdf == doctest::Approx(p).epsilon(1e-9));
    }
  }
  CHECK(generalized_pareto_quantile(0.0, 0.5, 2.0) == 0.0);
  // scipy.stats.genpareto.ppf(0.75, c=0.5, scale=2.0) = 4.0 and expon.ppf(0.75, scale=2) = 2 ln 4
  CHECK(generalized_pareto_quantile(0.75, 0.5, 2.0) == doctest::Approx(4.0).epsilon(1e-15));
  CHECK(generalized_pareto_quantile(0.75, 0.0, 2.0) == doctest::Approx(2.0 * std::log(4.0)).epsilon(1e-15));
}

TEST_CASE("Zhang-Stephens fit matches loo::gpdfit") {
  // loo 2.5.1 gpdfit(x, wip = FALSE) -> k, sigma; gpdfit(x, wip = TRUE) -> k (psis_reference.R).
  struct Case {
    const char* name;
    VectorXd x;
    double k, sigma, k_wip;
  };
  auto quantiles = [](Index n, auto f) {
    VectorXd x(n);
    for (Index i = 0; i < n; ++i) x[i] = f((static_cast<double>(i) + 0.5) / static_cast<double>(n));
    return x;
  };
  std::vector<Case> cases;
  cases.push_back({"seven, unsorted", (VectorXd(7) << 2.0, 0.1, 6.0, 0.7, 1.1, 3.5, 0.3).finished(),
                   0.46973623839880108, 1.2582099387609309, 0.48753845110538868});
  cases.push_back({"exponential quantiles", quantiles(20, [](double p) { return -std::log1p(-p); }),
                   0.091336469380654609, 0.90355705386051333, 0.22755764625376973});
  cases.push_back({"Pareto k = 0.7 quantiles",
                   quantiles(50, [](double p) { return std::expm1(-0.7 * std::log1p(-p)) / 0.7; }),
                   0.69386554726700533, 0.99435915580496281, 0.66155462272250454});
  cases.push_back({"uniform quantiles (k = -1)", quantiles(30, [](double p) { return p; }),
                   -0.87504602205327375, 0.90759843729239986, -0.53128451653995534});
  cases.push_back({"two points", (VectorXd(2) << 1.0, 3.0).finished(), -0.64940214074152647,
                   2.9905463595650801, 0.30843297654307894});
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const GeneralizedPareto raw = fit_generalized_pareto(c.x, /*weakly_informative_prior=*/false);
    CHECK(raw.k == doctest::Approx(c.k).epsilon(1e-12));
    CHECK(raw.sigma == doctest::Approx(c.sigma).epsilon(1e-12));
    CHECK(fit_generalized_pareto(c.x).k == doctest::Approx(c.k_wip).epsilon(1e-12));
  }
}

TEST_CASE("Zhang-Stephens fit with zeros among the exceedances") {
  // The first quartile is 0, so the grid takes its scale from the smallest positive value, 0.5.
  // loo gives Inf here (its grid is at -inf). Reference: /usr/bin/python3 + numpy, a
  // re-derivation of Zhang & Stephens (2009) Sec. 4 with x* = 0.5, which reproduces loo's
  // "seven" case above to 1e-15: k = 0.42561714656983218, sigma = 0.26587388627313313,
  // k(wip) = 0.46937176623463678.
  const VectorXd x = (VectorXd(7) << 0.0, 1.0, 0.0, 2.0, 0.0, 0.5, 0.0).finished();
  const GeneralizedPareto raw = fit_generalized_pareto(x, false);
  CHECK(raw.k == doctest::Approx(0.42561714656983218).epsilon(1e-12));
  CHECK(raw.sigma == doctest::Approx(0.26587388627313313).epsilon(1e-12));
  CHECK(fit_generalized_pareto(x).k == doctest::Approx(0.46937176623463678).epsilon(1e-12));
}

TEST_CASE("Zhang-Stephens fit rejects what is not a sample of exceedances") {
  CHECK_THROWS_AS(fit_generalized_pareto(VectorXd()), std::invalid_argument);
  CHECK_THROWS_AS(fit_generalized_pareto(VectorXd::Constant(1, 1.0)), std::invalid_argument);
  CHECK_THROWS_AS(fit_generalized_pareto(VectorXd::Zero(10)), std::invalid_argument);
  CHECK_THROWS_AS(fit_generalized_pareto((VectorXd(3) << 1.0, -0.5, 2.0).finished()), std::invalid_argument);
  CHECK_THROWS_AS(fit_generalized_pareto((VectorXd(3) << 1.0, qnan, 2.0).finished()), std::invalid_argument);
  CHECK_THROWS_AS(fit_generalized_pareto((VectorXd(3) << 1.0, inf, 2.0).finished()), std::invalid_argument);
}

TEST_CASE("Zhang-Stephens fit recovers the shape of simulated GPD data") {
  // x = F^{-1}(U) for n = 20000 draws. The maximum likelihood estimate has asymptotic standard
  // errors sd(k) = (1 + k) / sqrt(n) and sd(sigma) / sigma = sqrt(2 (1 + k) / n) for k > -1/2
  // (Hosking & Wallis 1987, Technometrics 29), and Zhang-Stephens is as efficient (200 replicates
  // with loo::gpdfit: sd 0.0061 / 0.0087 / 0.0104 / 0.0131 for k = -0.2 / 0.2 / 0.5 / 0.8,
  // against 0.0057 / 0.0085 / 0.0106 / 0.0127). Allow 4.5 of them. The prior is off: it would
  // move k by 10 (0.5 - k) / (n + 10), under 0.0004, which is not what this test is about.
  const Index n = 20000;
  const double sigma = 1.3;
  Rng rng(20240611);
  for (double k : {-0.2, 0.2, 0.5, 0.8}) {
    CAPTURE(k);
    VectorXd x(n);
    for (Index i = 0; i < n; ++i) x[i] = sigma * std::expm1(-k * std::log1p(-rng.uniform())) / k;
    const GeneralizedPareto fit = fit_generalized_pareto(x, false);
    const double nd = static_cast<double>(n);
    CHECK(std::abs(fit.k - k) <= 4.5 * (1.0 + k) / std::sqrt(nd));
    CHECK(std::abs(fit.sigma / sigma - 1.0) <= 4.5 * std::sqrt(2.0 * (1.0 + k) / nd));
  }
}

TEST_CASE("k-hat of normal importance ratios has the derived tail shape") {
  // q = N(0, 1), p = N(0, s^2): log r(x) = x^2 (1 - 1/s^2) / 2 - log s = a x^2 - log s.
  // For s > 1, a > 0: P(r > t) = P(|x| > y) = erfc(y / sqrt 2) with y^2 = log(t s) / a, and
  // erfc(y / sqrt 2) ~ sqrt(2/pi) e^{-y^2/2} / y = C t^{-1/(2a)} / sqrt(log(t s)): a power law
  // of index 1/(2a) times a slowly varying factor, so the GPD shape is k = 2a = 1 - 1/s^2.
  // The slowly varying factor is why finite samples fall short of it: the local shape
  // -1 / (d log P(r > t) / d log t) at a threshold u (y = y_u) is
  //   k(u) = 2a y_u erfc(y_u / sqrt 2) / (2 phi(y_u))   [d log P / dy = -2 phi / erfc, dy / d log t = 1/(2 a
  //   y)]
  // which rises to 1 - 1/s^2 as u grows, so a fit to the tail above u lands in [k(u), 1 - 1/s^2].
  // With S = 1e5 draws, M = 949 and P(r > u) = M / S. Tolerance: 4 standard errors of the mean
  // of R replicates ((1 + k) / sqrt(M R), see the test above), plus the prior's pull towards 0.5,
  // 10 |0.5 - k| / (M + 10). (loo 2.5.1, 20 replicates: mean k-hat 0.287 / 0.531 / 0.710 / 0.819
  // for s = 1.2 / 1.5 / 2 / 3; the intervals below are [0.27, 0.31], [0.49, 0.56], [0.67, 0.75],
  // [0.79, 0.89] before the tolerance.)
  const Index S = 100000, R = 8, M = psis_tail_length(S);
  const double tail_prob = static_cast<double>(M) / static_cast<double>(S);
  // y_u solves erfc(y / sqrt 2) = M / S; erfc is decreasing, so bisect.
  double lo = 0.0, hi = 10.0;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (std::erfc(mid / std::sqrt(2.0)) > tail_prob ? lo : hi) = mid;
  }
  const double y_u = 0.5 * (lo + hi);
  const double phi_u = std::exp(-0.5 * y_u * y_u) / std::sqrt(2.0 * M_PI);
  const double mills_factor = y_u * std::erfc(y_u / std::sqrt(2.0)) / (2.0 * phi_u);  // 0.892

  Rng rng(7);
  VectorXd lr(S);
  for (double s : {1.2, 1.5, 2.0, 3.0}) {
    CAPTURE(s);
    const double k_true = 1.0 - 1.0 / (s * s), k_local = k_true * mills_factor;
    const double prior_pull = 10.0 * std::abs(0.5 - k_true) / static_cast<double>(M + 10);
    const double se_one = (1.0 + k_true) / std::sqrt(static_cast<double>(M));
    double sum = 0.0;
    for (Index r = 0; r < R; ++r) {
      for (Index i = 0; i < S; ++i) {
        const double x = rng.normal();
        lr[i] = 0.5 * x * x * (1.0 - 1.0 / (s * s)) - std::log(s);
      }
      const ParetoFit fit = pareto_k_hat(lr);
      REQUIRE(fit.status == ParetoStatus::fitted);
      CHECK(fit.tail_length == M);
      CHECK(fit.k >= k_local - prior_pull - 4.0 * se_one);
      CHECK(fit.k <= k_true + prior_pull + 4.0 * se_one);
      sum += fit.k;
    }
    const double mean = sum / static_cast<double>(R), se_mean = se_one / std::sqrt(static_cast<double>(R));
    CHECK(mean >= k_local - prior_pull - 4.0 * se_mean);
    CHECK(mean <= k_true + prior_pull + 4.0 * se_mean);
  }

  // For s < 1, a < 0 and r <= 1/s (at x = 0): a bounded ratio, so the GPD shape is <= 0.
  // (Near the bound, P(r > r_max - e) ~ P(x^2 < e / (|a| r_max)) ~ e^{1/2}, which is k = -2;
  // loo gives about -1.8 there, the estimator being irregular for k < -1.)
  for (double s : {0.8, 0.5}) {
    CAPTURE(s);
    for (Index i = 0; i < S; ++i) {
      const double x = rng.normal();
      lr[i] = 0.5 * x * x * (1.0 - 1.0 / (s * s)) - std::log(s);
    }
    const ParetoFit fit = pareto_k_hat(lr);
    CHECK(fit.status == ParetoStatus::fitted);
    CHECK(fit.k < 0.0);
  }
}

TEST_CASE("PSIS matches loo::psis on deterministic log ratios") {
  // psis(lr, r_eff = 1); pareto_k_values(); weights(log = TRUE, normalize = TRUE) at the three
  // largest raw ratios and at two below the threshold (the smallest and the median), 0-based.
  struct Case {
    Index S, mult, tail;
    double k;
    std::vector<Index> draws;
    std::vector<double> log_weights;
  };
  const std::vector<Case> cases = {
      {1000,
       389,
       95,
       0.60139853318998338,
       {0, 509, 18, 401, 984},
       {-3.2683249934407286, -3.8104518977047519, -4.121054145008884, -8.1225076706375603,
        -7.3775976084368722}},
      {100,
       37,
       20,
       0.71901893134095729,
       {0, 73, 46, 24, 2},
       {-2.2870874421378176, -2.8116005308547756, -3.1702814831901378, -5.6919292683144249,
        -4.9922730189966842}},
      {21,
       4,
       5,
       0.57144849623970218,
       {0, 11, 16, 15, 13},
       {-1.7017184555816129, -2.3162323773565276, -2.5985924697790779, -4.0315731378043438,
        -3.3687790142653284}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.S);
    const VectorXd lr = ratios(c.S, c.mult);
    ParetoFit fit{};
    const VectorXd lw = psis_log_weights(lr, &fit);
    CHECK(fit.status == ParetoStatus::fitted);
    CHECK(fit.tail_length == c.tail);
    CHECK(fit.k == doctest::Approx(c.k).epsilon(1e-10));
    CHECK(pareto_k_hat(lr).k == fit.k);
    for (std::size_t j = 0; j < c.draws.size(); ++j)
      CHECK(lw[c.draws[j]] == doctest::Approx(c.log_weights[j]).epsilon(1e-10));
    check_smoothed_weights(lr, lw, fit);
  }
}

TEST_CASE("PSIS weights of a heavy simulated tail") {
  // q = N(0, 1), p = N(0, 2^2) (k = 0.75, see above), S = 1000: the properties of the weights,
  // and the order of the draws does not matter.
  Rng rng(99);
  const Index S = 1000;
  VectorXd lr(S);
  for (Index i = 0; i < S; ++i) {
    const double x = rng.normal();
    lr[i] = 0.375 * x * x - std::log(2.0);
  }
  ParetoFit fit{};
  const VectorXd lw = psis_log_weights(lr, &fit);
  REQUIRE(fit.status == ParetoStatus::fitted);
  CHECK(fit.tail_length == 95);
  check_smoothed_weights(lr, lw, fit);

  std::vector<Index> perm(static_cast<std::size_t>(S));
  std::iota(perm.begin(), perm.end(), Index{0});
  std::shuffle(perm.begin(), perm.end(), rng.g);
  VectorXd shuffled(S);
  for (Index i = 0; i < S; ++i) shuffled[i] = lr[perm[static_cast<std::size_t>(i)]];
  const VectorXd lw_shuffled = psis_log_weights(shuffled);
  for (Index i = 0; i < S; ++i)
    CHECK(lw_shuffled[i] == doctest::Approx(lw[perm[static_cast<std::size_t>(i)]]).epsilon(1e-14));
}

TEST_CASE("k-hat does not depend on the scale of the log ratios") {
  // Adding c to every log ratio multiplies every ratio by e^c. c = +-1e5 would overflow or
  // underflow exp() if the ratios were exponentiated before the shift; the shift itself rounds
  // at ulp(1e5) = 1.5e-11, hence the tolerance.
  const VectorXd lr = ratios(1000, 389).array() - 1234.5;
  const double k = pareto_k_hat(lr).k;
  for (double c : {-1e5, -700.0, 800.0, 1e5}) {
    CAPTURE(c);
    const VectorXd shifted = lr.array() + c;
    CHECK(pareto_k_hat(shifted).k == doctest::Approx(k).epsilon(1e-8));
    const VectorXd lw = psis_log_weights(shifted);
    CHECK(std::abs(log_sum_exp(lw)) < 1e-12);
    CHECK((lw - psis_log_weights(lr)).cwiseAbs().maxCoeff() < 1e-8);
  }
}

TEST_CASE("p = q: flat tails give k = -inf and equal weights") {
  SUBCASE("constant log ratios") {
    for (double c : {0.0, 3.7, -1e5}) {
      const VectorXd lr = VectorXd::Constant(1000, c);
      ParetoFit fit{};
      const VectorXd lw = psis_log_weights(lr, &fit);
      CHECK(fit.status == ParetoStatus::flat_tail);
      CHECK(fit.k == -inf);
      CHECK(fit.sigma == 0.0);
      CHECK(fit.tail_length == 0);
      CHECK(lw.allFinite());
      CHECK((lw.array() + std::log(1000.0)).abs().maxCoeff() < 1e-12);
    }
  }
  SUBCASE("equal up to rounding") {
    // A 200-dimensional q = N(0, I) and p = the same density summed the other way round, with the
    // normalizing constant per coordinate: log p - log q is rounding noise, within +-3.5e-13 (the same
    // construction in numpy).
    Rng rng(3);
    const Index S = 1000, D = 200;
    const double half_log_2pi = 0.5 * std::log(2.0 * M_PI);
    VectorXd lr(S);
    for (Index s = 0; s < S; ++s) {
      std::vector<double> x(D);
      for (double& v : x) v = rng.normal();
      double sq = 0.0, log_p = 0.0;
      for (double v : x) sq += v * v;
      for (auto it = x.rbegin(); it != x.rend(); ++it) log_p += -0.5 * *it * *it - half_log_2pi;
      lr[s] = log_p - (-0.5 * sq - static_cast<double>(D) * half_log_2pi);
    }
    REQUIRE(lr.maxCoeff() > lr.minCoeff());  // the noise is there
    ParetoFit fit{};
    const VectorXd lw = psis_log_weights(lr, &fit);
    CHECK(fit.status == ParetoStatus::flat_tail);
    CHECK(fit.k == -inf);
    CHECK((lw.array() + std::log(1000.0)).abs().maxCoeff() < 1e-9);
  }
  SUBCASE("a real spread just above the tolerance is fitted") {
    // Tolerance 1e-9 * |max| = 1e-6 here; a spread of 1e-4 is a tail, however small.
    const VectorXd lr = (ratios(1000, 389).array() - 1234.5) * 1e-4 - 1000.0;
    const ParetoFit fit = pareto_k_hat(lr);
    CHECK(fit.status == ParetoStatus::fitted);
    CHECK(std::isfinite(fit.k));
  }
  SUBCASE("all tail draws equal, threshold below: a very light tail, not flat") {
    // The 95 largest are equal and the 96th is lower: the exceedances are all equal, the
    // tail as light as a fitted one gets; the estimate is finite and negative.
    VectorXd lr = VectorXd::LinSpaced(1000, -5.0, -1.0);
    lr.tail(95).setConstant(0.0);
    const ParetoFit fit = pareto_k_hat(lr);
    CHECK(fit.status == ParetoStatus::fitted);
    CHECK(fit.k < 0.0);
    CHECK(std::isfinite(fit.k));
  }
}

TEST_CASE("too few draws: k = +inf and plain importance weights") {
  for (Index S : {0, 1, 2, 5, 20}) {
    CAPTURE(S);
    const VectorXd lr = ratios(S == 0 ? 1 : S, 1).head(S);
    ParetoFit fit{};
    const VectorXd lw = psis_log_weights(lr, &fit);
    CHECK(fit.status == ParetoStatus::too_few_tail_draws);
    CHECK(fit.k == inf);
    CHECK(fit.tail_length == 0);
    REQUIRE(lw.size() == S);
    if (S > 0) CHECK((lw.array() - (lr.array() - log_sum_exp(lr))).abs().maxCoeff() < 1e-12);
  }
  // S = 21 is the first with M = 5 (see the loo comparison above).
  CHECK(pareto_k_hat(ratios(21, 4)).status == ParetoStatus::fitted);
}

TEST_CASE("ties at the threshold are not exceedances") {
  // S = 1000, M = 95. 61 of the 96 largest share the threshold value: 35 draws are above it.
  VectorXd lr = ratios(1000, 389).array() - 1234.5;
  std::vector<Index> o = ascending(lr);
  const double u = lr[o[1000 - 96]];
  for (Index i = 1000 - 96; i < 1000 - 35; ++i) lr[o[static_cast<std::size_t>(i)]] = u;
  ParetoFit fit{};
  VectorXd lw = psis_log_weights(lr, &fit);
  CHECK(fit.status == ParetoStatus::fitted);
  CHECK(fit.tail_length == 35);
  check_smoothed_weights(lr, lw, fit);

  // With 92 of the 96 at the threshold only 4 exceed it: too few to fit.
  for (Index i = 1000 - 96; i < 1000 - 4; ++i) lr[o[static_cast<std::size_t>(i)]] = u;
  CHECK(pareto_k_hat(lr).status == ParetoStatus::too_few_tail_draws);
  CHECK(pareto_k_hat(lr).k == inf);
}

TEST_CASE("tied ratios in the tail get equal weights") {
  VectorXd lr = ratios(1000, 389).array() - 1234.5;
  std::vector<Index> o = ascending(lr);
  // Three ties among the tail draws: the 10th-12th largest and the two largest.
  lr[o[989]] = lr[o[988]] = lr[o[990]];
  lr[o[998]] = lr[o[999]];
  ParetoFit fit{};
  const VectorXd lw = psis_log_weights(lr, &fit);
  REQUIRE(fit.status == ParetoStatus::fitted);
  CHECK(lw[o[988]] == lw[o[990]]);
  CHECK(lw[o[989]] == lw[o[990]]);
  CHECK(lw[o[998]] == lw[o[999]]);
  check_smoothed_weights(lr, lw, fit);
}

TEST_CASE("zero ratios (-inf log ratios) weigh nothing") {
  SUBCASE("a few, below the threshold: matches loo with them at -1e4") {
    // psis_reference.R: ratios(1000, 389) with every 20th draw at -1e4 (loo rejects -Inf; so far
    // below the threshold they change nothing else).
    VectorXd lr = ratios(1000, 389);
    for (Index i = 0; i < 1000; i += 20) lr[i] = -inf;
    ParetoFit fit{};
    const VectorXd lw = psis_log_weights(lr, &fit);
    CHECK(fit.status == ParetoStatus::fitted);
    CHECK(fit.k == doctest::Approx(0.57840891077739887).epsilon(1e-10));
    CHECK(lw[509] == doctest::Approx(-3.7193295194826987).epsilon(1e-10));
    CHECK(lw[18] == doctest::Approx(-3.8659888834256435).epsilon(1e-10));
    CHECK(lw[527] == doctest::Approx(-4.1643809867780419).epsilon(1e-10));
    for (Index i = 0; i < 1000; ++i) CHECK((i % 20 == 0 ? lw[i] == -inf : std::isfinite(lw[i])));
    CHECK(std::abs(log_sum_exp(lw)) < 1e-12);
  }
  SUBCASE("so many that the threshold is a zero ratio") {
    // 95 finite of 1000: the 96th largest is -inf.
    VectorXd lr = VectorXd::Constant(1000, -inf);
    lr.head(95) = ratios(95, 1);
    ParetoFit fit{};
    const VectorXd lw = psis_log_weights(lr, &fit);
    CHECK(fit.status == ParetoStatus::zero_weight_threshold);
    CHECK(fit.k == inf);
    CHECK(std::abs(log_sum_exp(lw)) < 1e-12);  // plain importance weights of the 95
    CHECK((lw.tail(905).array() == -inf).all());
  }
  SUBCASE("all of them") {
    ParetoFit fit{};
    const VectorXd lw = psis_log_weights(VectorXd::Constant(100, -inf), &fit);
    CHECK(fit.status == ParetoStatus::zero_weight_threshold);
    CHECK(fit.k == inf);
    CHECK(lw.array().isNaN().all());  // 0 / 0: nothing to normalize
  }
}

TEST_CASE("a tail spanning more than double range: k = +inf, not a fit to underflowed zeros") {
  // A diverged fit's log ratios: the 95 largest of 1000 are 1000 apart each, so relative to the
  // largest every other ratio underflows. Fitting those zeros gave k = 0.057 ("good").
  VectorXd lr(1000);
  for (Index i = 0; i < 1000; ++i) lr[i] = -6.6e10 - 1000.0 * static_cast<double>((i * 389) % 1000);
  ParetoFit fit{};
  const VectorXd lw = psis_log_weights(lr, &fit);
  CHECK(fit.status == ParetoStatus::zero_weight_threshold);
  CHECK(fit.k == inf);
  CHECK(lw[0] == doctest::Approx(0.0).epsilon(1e-12));  // plain importance weights: all on one draw
  CHECK(std::abs(log_sum_exp(lw)) < 1e-12);
  SUBCASE("just inside double range the tail is still fitted") {
    // Threshold 700 below the largest: the exceedances are tiny but not 0, and the tail is
    // plainly heavy.
    VectorXd near(1000);
    for (Index i = 0; i < 1000; ++i)
      near[i] = -7.0 * static_cast<double>(std::min<Index>((i * 389) % 1000, 100));
    const ParetoFit f = pareto_k_hat(near);
    CHECK(f.status == ParetoStatus::fitted);
    CHECK(f.k > 0.7);
  }
}

TEST_CASE("NaN or +inf log ratios: k = +inf and NaN weights") {
  for (double bad : {qnan, inf}) {
    for (Index S : {3, 1000}) {
      CAPTURE(bad);
      CAPTURE(S);
      VectorXd lr = ratios(S, 1);
      lr[S / 2] = bad;
      ParetoFit fit{};
      const VectorXd lw = psis_log_weights(lr, &fit);
      CHECK(fit.status == ParetoStatus::non_finite_ratio);
      CHECK(fit.k == inf);
      CHECK(fit.tail_length == 0);
      CHECK(lw.array().isNaN().all());
      CHECK(pareto_k_hat(lr).k == inf);
    }
  }
  CHECK(std::string(to_string(ParetoStatus::non_finite_ratio)) == "NaN or +inf log ratio");
}

// The tail's selection may first cut the draws at a value taken from every 4th draw; a cut that
// keeps too few falls back to all draws. Either way the draws chosen, and so k, sigma and the
// weights, must be those of the plain sort: the same ratios in two draw orders, one that puts the
// 200 largest at multiples of 4 (the sample then cuts too high and the fallback runs) and one
// shuffled (the cut runs), give the same fit and the same weights, permuted.
TEST_CASE("PSIS: the tail selection's cut and its fallback choose the same draws") {
  const Index S = 1000;
  std::mt19937_64 gen(2024);
  std::student_t_distribution<double> t3(3.0);
  std::vector<double> values(static_cast<std::size_t>(S));
  for (double& v : values) v = t3(gen);
  std::sort(values.begin(), values.end());
  // Order A: the 200 largest values at draws 0, 4, 8, ...; the rest elsewhere.
  std::vector<Index> slot_a;
  for (Index s = 0; s < S; s += 4) slot_a.push_back(s);
  for (Index s = 0; s < S; ++s)
    if (s % 4 != 0) slot_a.push_back(s);
  std::vector<Index> perm_a(static_cast<std::size_t>(S));  // value rank r sits at draw perm_a[r]
  for (Index r = 0; r < S; ++r)
    perm_a[static_cast<std::size_t>(S - 1 - r)] = slot_a[static_cast<std::size_t>(r)];
  std::vector<Index> perm_b(perm_a);
  std::shuffle(perm_b.begin(), perm_b.end(), gen);
  VectorXd a(S), b(S);
  for (Index r = 0; r < S; ++r) {
    a[perm_a[static_cast<std::size_t>(r)]] = values[static_cast<std::size_t>(r)];
    b[perm_b[static_cast<std::size_t>(r)]] = values[static_cast<std::size_t>(r)];
  }
  ParetoFit fa, fb;
  const VectorXd wa = psis_log_weights(a, &fa), wb = psis_log_weights(b, &fb);
  REQUIRE(fa.status == ParetoStatus::fitted);
  CHECK(fa.k == fb.k);
  CHECK(fa.sigma == fb.sigma);
  CHECK(fa.tail_length == fb.tail_length);
  for (Index r = 0; r < S; ++r)
    CHECK(wa[perm_a[static_cast<std::size_t>(r)]] ==
          doctest::Approx(wb[perm_b[static_cast<std::size_t>(r)]]).epsilon(1e-13));
}

}  // namespace test_psis
