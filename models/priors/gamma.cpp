// The Gamma(shape, rate) prior (the ad op holds the formula, its edge cases and its derivatives).
#include "inference/ad/ops/gamma_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var gamma_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::gamma_lpdf(x, h[0], h[1]);
}
}  // namespace

extern const PriorFamily kGammaPrior{
    "gamma",
    "Gamma(shape, rate)",
    "log p(x) = shape·log(rate) − log Γ(shape) + (shape − 1) log(x) − rate·x for x > 0.",
    Support::positive,
    {{"shape", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Shape: the mean is shape/rate, the variance shape/rate²."},
     {"rate", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Rate, the inverse scale: Stan's gamma(shape, rate) and NumPyro's Gamma(concentration, rate); scipy's scale is 1/rate."}},
    &gamma_log_density,
};

}  // namespace bvi::models
