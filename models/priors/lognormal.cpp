// The LogNormal(loc, scale) prior (the ad op holds the formula, its edge cases and its derivatives).
#include "inference/ad/ops/lognormal_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var lognormal_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::lognormal_lpdf(x, h[0], h[1]);
}
}  // namespace

extern const PriorFamily kLogNormalPrior{
    "lognormal",
    "LogNormal(loc, scale)",
    "log p(x) = −log(x) − log(scale) − log(2π)/2 − z²/2, z = (log(x) − loc)/scale, for x > 0.",
    Support::positive,
    {{"loc", spec::Kind::hyper, nullptr, true, spec::any_real(), {}, "Mean of log x (the median of x is exp(loc))."},
     {"scale", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Standard deviation of log x."}},
    &lognormal_log_density,
};

}  // namespace bvi::models
