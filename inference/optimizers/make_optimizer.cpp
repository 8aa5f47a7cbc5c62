#include <stdexcept>

#include "inference/optimizers/adam.hpp"
#include "inference/optimizers/adaptive_step.hpp"
#include "inference/optimizers/sgd.hpp"

namespace bvi::vi {

std::unique_ptr<Optimizer> make_optimizer(const spec::OptimizerConfig& c, double adapted_eta) {
  if (c.name == "sgd") return std::make_unique<Sgd>(c.learning_rate);
  if (c.name == "adam") return std::make_unique<Adam>(c.learning_rate, c.decay, c.beta1, c.beta2, c.epsilon);
  if (c.name == "adaptive")
    return std::make_unique<AdaptiveStep>(c.eta ? *c.eta : adapted_eta, c.tau, c.alpha);
  throw std::invalid_argument("no flat-vector optimizer '" + c.name + "' (natural updates the family itself)");
}

}  // namespace bvi::vi
