// The Laplace(loc, scale) prior (the ad op holds the formula, its edge cases and its derivatives).
#include <cmath>

#include "inference/ad/ops/laplace_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var laplace_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::laplace_lpdf(x, h[0], h[1]);
}
// E|x - loc| for x ~ N(m, v), the folded normal's mean with d = m - loc, s = sqrt(v):
//   E|x - loc| = s sqrt(2/pi) exp(-d^2/(2 v)) + d erf(d/(s sqrt 2)),
//   d/dm = erf(d/(s sqrt 2)),  d/dv = phi(d/s)/s.
// Gauss–Hermite cannot integrate the kink at loc to full precision; this is exact.
void laplace_expectation(const double* m, const double* v, Eigen::Index n, const double* const* h,
                         const Eigen::Index* hs, double* value, double* d_mean, double* d_var) {
  constexpr double kSqrt2OverPi = 0.79788456080286535588, kInvSqrt2Pi = 0.39894228040143267794;
  for (Eigen::Index j = 0; j < n; ++j) {
    const double loc = h[0][hs[0] == 1 ? 0 : j], b = h[1][hs[1] == 1 ? 0 : j];
    const double d = m[j] - loc, s = std::sqrt(v[j]);
    const double z = d / s, gauss = std::exp(-0.5 * z * z);
    const double e = std::erf(z * 0.70710678118654752440);
    const double abs_mean = s * kSqrt2OverPi * gauss + d * e;
    value[j] = -std::log(2.0 * b) - abs_mean / b;
    d_mean[j] = -e / b;
    d_var[j] = -kInvSqrt2Pi * gauss / s / b;
  }
}
}  // namespace

extern const PriorFamily kLaplacePrior{
    "laplace",
    "Laplace(loc, scale)",
    "log p(x) = −log(2 scale) − |x − loc|/scale (Stan's double_exponential).",
    Support::real,
    {{"loc", spec::Kind::hyper, nullptr, true, spec::any_real(), {}, "Location: the mean and median."},
     {"scale", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Scale (the sd is scale·√2)."}},
    &laplace_log_density,
    &laplace_expectation,
};

}  // namespace bvi::models
