// The StudentT(df, loc, scale) prior (the ad op holds the formula, its edge cases and its derivatives).
#include "inference/ad/ops/student_t_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var student_t_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::student_t_lpdf(x, h[0], h[1], h[2]);
}
}  // namespace

extern const PriorFamily kStudentTPrior{
    "student_t",
    "StudentT(df, loc, scale)",
    "log p(x) = log Γ((df + 1)/2) − log Γ(df/2) − log(df π)/2 − log(scale) − (df + 1)/2 · log(1 + z²/df), z = (x − loc)/scale.",
    Support::real,
    {{"df", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Degrees of freedom: smaller is heavier-tailed; 1 is the Cauchy, and it tends to the normal as df grows."},
     {"loc", spec::Kind::hyper, nullptr, true, spec::any_real(), {}, "Location: the median (and the mean when df > 1)."},
     {"scale", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Scale (the sd is scale·√(df/(df − 2)) when df > 2)."}},
    &student_t_log_density,
};

}  // namespace bvi::models
