// The Exponential(rate) prior (the ad op holds the formula, its edge cases and its derivatives).
#include "inference/ad/ops/exponential_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var exponential_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::exponential_lpdf(x, h[0]);
}
}  // namespace

extern const PriorFamily kExponentialPrior{
    "exponential",
    "Exponential(rate)",
    "log p(x) = log(rate) − rate·x for x ≥ 0.",
    Support::positive,
    {{"rate", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Rate: the mean is 1/rate (Stan's exponential(rate); scipy's scale is 1/rate)."}},
    &exponential_log_density,
};

}  // namespace bvi::models
