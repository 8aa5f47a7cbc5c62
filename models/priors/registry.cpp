#include "models/priors/prior_family.hpp"

namespace bvi::models {

// Real support first, then positive; each defined in its own file.
extern const PriorFamily kNormalPrior;
extern const PriorFamily kStudentTPrior;
extern const PriorFamily kCauchyPrior;
extern const PriorFamily kLaplacePrior;
extern const PriorFamily kLogisticPrior;
extern const PriorFamily kHalfNormalPrior;
extern const PriorFamily kHalfCauchyPrior;
extern const PriorFamily kHalfStudentTPrior;
extern const PriorFamily kExponentialPrior;
extern const PriorFamily kGammaPrior;
extern const PriorFamily kLogNormalPrior;

const std::vector<const PriorFamily*>& prior_families() {
  static const std::vector<const PriorFamily*> all{
      &kNormalPrior,       &kStudentTPrior,   &kCauchyPrior,       &kLaplacePrior,
      &kLogisticPrior,     &kHalfNormalPrior, &kHalfCauchyPrior,   &kHalfStudentTPrior,
      &kExponentialPrior,  &kGammaPrior,      &kLogNormalPrior};
  return all;
}

const PriorFamily* find_prior_family(const std::string& name) {
  for (const PriorFamily* f : prior_families())
    if (f->name == name) return f;
  return nullptr;
}

}  // namespace bvi::models
