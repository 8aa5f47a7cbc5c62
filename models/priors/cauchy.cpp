// The Cauchy(loc, scale) prior (the ad op holds the formula, its edge cases and its derivatives).
#include "inference/ad/ops/cauchy_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var cauchy_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::cauchy_lpdf(x, h[0], h[1]);
}
}  // namespace

extern const PriorFamily kCauchyPrior{
    "cauchy",
    "Cauchy(loc, scale)",
    "log p(x) = −log(π) − log(scale) − log(1 + z²), z = (x − loc)/scale.",
    Support::real,
    {{"loc", spec::Kind::hyper, nullptr, true, spec::any_real(), {}, "Location: the median."},
     {"scale", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Scale: half the interquartile range."}},
    &cauchy_log_density,
};

}  // namespace bvi::models
