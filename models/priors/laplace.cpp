// The Laplace(loc, scale) prior (the ad op holds the formula, its edge cases and its derivatives).
#include "inference/ad/ops/laplace_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var laplace_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::laplace_lpdf(x, h[0], h[1]);
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
};

}  // namespace bvi::models
