// The HalfCauchy(scale) prior (the ad op holds the formula, its edge cases and its derivatives).
#include "inference/ad/ops/half_cauchy_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var half_cauchy_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::half_cauchy_lpdf(x, h[0]);
}
}  // namespace

extern const PriorFamily kHalfCauchyPrior{
    "half_cauchy",
    "HalfCauchy(scale)",
    "log p(x) = log(2/π) − log(scale) − log(1 + (x/scale)²) for x ≥ 0: a Cauchy(0, scale) folded at 0.",
    Support::positive,
    {{"scale", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Scale: the median."}},
    &half_cauchy_log_density,
};

}  // namespace bvi::models
