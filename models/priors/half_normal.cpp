// The HalfNormal(scale) prior (the ad op holds the formula, its edge cases and its derivatives).
#include "inference/ad/ops/half_normal_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var half_normal_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::half_normal_lpdf(x, h[0]);
}
}  // namespace

extern const PriorFamily kHalfNormalPrior{
    "half_normal",
    "HalfNormal(scale)",
    "log p(x) = log(2/π)/2 − log(scale) − (x/scale)²/2 for x ≥ 0: a Normal(0, scale) folded at 0, log 2 included (Stan's normal(0, scale) on a parameter with lower=0 drops it as a constant).",
    Support::positive,
    {{"scale", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Scale of the folded normal (the mean is scale·√(2/π))."}},
    &half_normal_log_density,
};

}  // namespace bvi::models
