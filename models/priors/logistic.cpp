// The Logistic(loc, scale) prior (the ad op holds the formula, its edge cases and its derivatives).
#include "inference/ad/ops/logistic_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var logistic_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::logistic_lpdf(x, h[0], h[1]);
}
}  // namespace

extern const PriorFamily kLogisticPrior{
    "logistic",
    "Logistic(loc, scale)",
    "log p(x) = −z − 2 log(1 + exp(−z)) − log(scale), z = (x − loc)/scale.",
    Support::real,
    {{"loc", spec::Kind::hyper, nullptr, true, spec::any_real(), {}, "Location: the mean and median."},
     {"scale", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Scale (the sd is scale·π/√3)."}},
    &logistic_log_density,
};

}  // namespace bvi::models
