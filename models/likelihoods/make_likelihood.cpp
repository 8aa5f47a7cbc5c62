#include <stdexcept>

#include "models/likelihoods/bernoulli_logit.hpp"

namespace bvi::models {

std::vector<spec::ParameterConfig> likelihood_parameters(const std::string& /*name*/) { return {}; }

std::unique_ptr<Likelihood> make_likelihood(const std::string& name, const ParameterLayout& layout,
                                            const LikelihoodOptions& options) {
  if (name == "bernoulli_logit") return std::make_unique<BernoulliLogit>(layout, options.fused);
  throw std::invalid_argument("unknown likelihood '" + name + "'");  // the config validator lists them
}

}  // namespace bvi::models
