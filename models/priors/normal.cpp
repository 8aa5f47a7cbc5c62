// The Normal prior: log N(x | loc, scale) = -((x - loc)/scale)^2 / 2 - log(scale) - log(2 pi)/2.
#include "inference/ad/ops/normal_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var normal_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::normal_lpdf(x, h[0], h[1]);
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
};

}  // namespace bvi::models
