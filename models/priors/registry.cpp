#include "models/priors/prior_family.hpp"

namespace bvi::models {

extern const PriorFamily kNormalPrior;

const std::vector<const PriorFamily*>& prior_families() {
  static const std::vector<const PriorFamily*> all{&kNormalPrior};
  return all;
}

const PriorFamily* find_prior_family(const std::string& name) {
  for (const PriorFamily* f : prior_families())
    if (f->name == name) return f;
  return nullptr;
}

}  // namespace bvi::models
