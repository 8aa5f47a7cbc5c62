// The HalfStudentT(df, scale) prior (the ad op holds the formula, its edge cases and its derivatives).
#include "inference/ad/ops/half_student_t_lpdf.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

namespace {
ad::Var half_student_t_log_density(const ad::Var& x, const ad::Var* h) {
  return ad::half_student_t_lpdf(x, h[0], h[1]);
}
}  // namespace

extern const PriorFamily kHalfStudentTPrior{
    "half_student_t",
    "HalfStudentT(df, scale)",
    "log p(x) = log 2 + log StudentT(x | df, 0, scale) for x ≥ 0: a Student t folded at 0.",
    Support::positive,
    {{"df", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Degrees of freedom: 1 is the half-Cauchy; it tends to the half-normal as df grows."},
     {"scale", spec::Kind::hyper, nullptr, true, spec::positive(), {}, "Scale of the folded Student t."}},
    &half_student_t_log_density,
};

}  // namespace bvi::models
