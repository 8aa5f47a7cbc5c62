// The Normal prior: log N(x | loc, scale) = -((x - loc)/scale)^2 / 2 - log(scale) - log(2 pi)/2.
#include <cmath>

#include "inference/ad/ops/normal_lpdf.hpp"
#include "inference/math/constants.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var normal_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::normal_lpdf(x, h[0], h[1]);
}
// E log N(x | loc, scale) for x ~ N(m, v): -((m - loc)^2 + v)/(2 scale^2) - log scale - log(2 pi)/2.
void normal_expectation(const double* m, const double* v, Eigen::Index n, const double* const* h,
                        const Eigen::Index* hs, double* value, double* d_mean, double* d_var) {
  using bvi::math::kHalfLog2Pi;
  for (Eigen::Index j = 0; j < n; ++j) {
    const double loc = h[0][hs[0] == 1 ? 0 : j], scale = h[1][hs[1] == 1 ? 0 : j];
    const double prec = 1.0 / (scale * scale), d = m[j] - loc;
    value[j] = -0.5 * (d * d + v[j]) * prec - std::log(scale) - kHalfLog2Pi;
    d_mean[j] = -d * prec;
    d_var[j] = -0.5 * prec;
  }
}
}  // namespace

extern const PriorFamily kNormalPrior{
    "normal",
    "Normal(loc, scale)",
    "log p(x) = −z²/2 − log(scale) − log(2π)/2, z = (x − loc)/scale.",
    Support::real,
    {{"loc", spec::Kind::hyper, nullptr, true, spec::any_real(), {}, "Mean."},
     {"scale", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Standard deviation."}},
    &normal_log_density,
    &normal_expectation,
};

}  // namespace bvi::models
