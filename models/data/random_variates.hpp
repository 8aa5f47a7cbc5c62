#pragma once
// Exact samplers for bayes-vi simulate's responses, each a function of a source of uniforms on
// (0, 1] (any callable `double u()`), so a row's response is a pure function of its own stream
// (RowUniforms) whatever thread makes it:
//   normal     Box-Muller, two uniforms;
//   gamma      Marsaglia & Tsang (2000), "A simple method for generating gamma variables", for
//              shape >= 1; shape < 1 as Gamma(shape + 1) * U^(1/shape) (their section 6), in logs
//              so that tiny shapes do not underflow;
//   beta       X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b), from the logs of both;
//   student t  Z / sqrt(X / nu) with Z normal and X = 2 Gamma(nu / 2) chi-square;
//   poisson    inversion by sequential search for mean < 10, else Hoermann's (1993) PTRS
//              transformed rejection ("The transformed rejection method for generating Poisson
//              random variables"), as numpy draws them;
//   neg. bin.  the gamma-Poisson mixture: lambda ~ Gamma(phi, rate phi / mu), y ~ Poisson(lambda);
//   binomial   the count of n uniforms below p (n Bernoulli trials, exactly the definition).
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "inference/rng/normal_stream.hpp"

namespace bvi::data {

// An unbounded sequence of uniforms on (0, 1] for one row: uniform k is coordinate k % 4 of
// attempt first_attempt + k / 4 of draw `row` of (seed, purpose, step), so simulate's uniform 0 is
// the one the logistic response has always used (predict's replicates start at attempt 1: attempt 0
// is their single-value families' draw).
class RowUniforms {
 public:
  RowUniforms(std::uint64_t seed, std::uint64_t step, std::uint64_t row,
              rng::Purpose purpose = rng::Purpose::simulation, std::uint64_t first_attempt = 0)
      : seed_(seed), step_(step), row_(row), first_attempt_(first_attempt), purpose_(purpose) {}
  double operator()();

 private:
  std::uint64_t seed_, step_, row_, first_attempt_;
  rng::Purpose purpose_;
  std::uint64_t next_ = 0;  // index of the next uniform
  double quad_[4] = {0, 0, 0, 0};
};

template <class Uniform>
double normal_variate(Uniform& u) {
  const double r = std::sqrt(-2.0 * std::log(u()));
  return r * std::cos(6.283185307179586 * u());
}

// log of a Gamma(shape, 1) draw.
template <class Uniform>
double log_gamma_variate(double shape, Uniform& u) {
  if (!(shape > 0) || !std::isfinite(shape)) throw std::invalid_argument("gamma variate: shape must be > 0");
  if (shape < 1) {
    // Gamma(a) = Gamma(a + 1) * U^(1/a) for a < 1.
    const double g = log_gamma_variate(shape + 1.0, u);
    return g + std::log(u()) / shape;
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = normal_variate(u);
    const double t = 1.0 + c * x;
    if (t <= 0) continue;
    const double v = t * t * t;
    const double lu = std::log(u());
    if (lu < 0.5 * x * x + d - d * v + d * std::log(v)) return std::log(d) + std::log(v);
  }
}

template <class Uniform>
double gamma_variate(double shape, Uniform& u) {
  return std::exp(log_gamma_variate(shape, u));
}

// Beta(a, b) as X / (X + Y) = 1 / (1 + exp(log Y - log X)).
template <class Uniform>
double beta_variate(double a, double b, Uniform& u) {
  const double lx = log_gamma_variate(a, u), ly = log_gamma_variate(b, u);
  return 1.0 / (1.0 + std::exp(ly - lx));
}

// Student t with nu degrees of freedom: Z / sqrt(X / nu), Z ~ Normal(0, 1), X ~ chi2(nu) = 2
// Gamma(nu / 2, 1), taken in logs so that a tiny nu (a huge X^-1) does not overflow.
template <class Uniform>
double student_t_variate(double nu, Uniform& u) {
  if (!(nu > 0)) throw std::invalid_argument("student t variate: nu must be > 0");
  const double z = normal_variate(u);
  if (std::isinf(nu)) return z;
  return z * std::exp(0.5 * (std::log(nu) - 0.6931471805599453 - log_gamma_variate(0.5 * nu, u)));
}

// The largest mean drawn: past it a count no longer fits a double's integers exactly.
constexpr double kMaxPoissonMean = 1e15;

template <class Uniform>
std::int64_t poisson_variate(double mu, Uniform& u) {
  if (!(mu >= 0) || !(mu <= kMaxPoissonMean))
    throw std::invalid_argument("poisson variate: mean must be in [0, 1e15]");
  if (mu == 0) return 0;
  if (mu < 10) {
    // Inversion: the smallest k with F(k) >= U. F rounds to just below 1 at worst, so the
    // search stops once the pmf has vanished.
    const double uu = u();
    double p = std::exp(-mu), s = p;
    std::int64_t k = 0;
    while (uu > s && p > 0) {
      ++k;
      p *= mu / static_cast<double>(k);
      s += p;
    }
    return k;
  }
  const double slam = std::sqrt(mu), loglam = std::log(mu);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double U = u() - 0.5, V = u();
    const double us = 0.5 - std::fabs(U);
    const double k = std::floor((2.0 * a / us + b) * U + mu + 0.43);
    if (us >= 0.07 && V <= vr) return static_cast<std::int64_t>(k);
    if (k < 0 || (us < 0.013 && V > us)) continue;
    if (std::log(V) + std::log(invalpha) - std::log(a / (us * us) + b) <=
        -mu + k * loglam - std::lgamma(k + 1.0))
      return static_cast<std::int64_t>(k);
  }
}

// NB2 with mean mu and Var = mu + mu^2 / phi.
template <class Uniform>
std::int64_t negative_binomial_variate(double mu, double phi, Uniform& u) {
  if (mu == 0) return 0;
  const double lambda = std::exp(log_gamma_variate(phi, u) + std::log(mu / phi));
  return poisson_variate(lambda, u);
}

template <class Uniform>
std::int64_t binomial_variate(std::int64_t trials, double p, Uniform& u) {
  std::int64_t y = 0;
  for (std::int64_t k = 0; k < trials; ++k) y += u() < p ? 1 : 0;
  return y;
}

}  // namespace bvi::data
