// /inference/optimizer without a name is the natural optimizer, with its own settings filled in
// (the schema's default name was once adam's, and reading adam's keys from the natural section
// threw a JSON exception instead of a config error: found by the config fuzzer).
#include <doctest/doctest.h>

#include "models/spec/config.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_optimizer_config {

using namespace bvi;

TEST_CASE("an optimizer without a name is the natural one") {
  const std::string text = R"({"data": {"csv": "data.csv", "response": "y"},
    "model": {"likelihood": "bernoulli_logit"},
    "inference": {"optimizer": {"learning_rate": 0.5}}})";
  const spec::Config c = spec::parse_config_text(text, "c.json", "/tmp");
  CHECK(c.inference.method == "monte_carlo");
  CHECK(c.inference.optimizer.name == "natural");
  CHECK(c.inference.optimizer.learning_rate == 0.5);
  CHECK(c.inference.optimizer.min_learning_rate == 0.1);
  CHECK(c.resolved["inference"]["optimizer"]["name"] == "natural");
}

}  // namespace test_optimizer_config
