// The config parser and validator on arbitrary text: parse_config_text (JSON, schema, priors,
// parameters, optimizer), then what fit and check do next with a valid config: build the model
// against a header and resolve the automatic settings.
#include "models/spec/config.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "models/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  bvi::fuzz::only_user_errors([&] {
    bvi::spec::Config config = bvi::spec::parse_config_text(text, "fuzz.json", "/fuzz");
    const std::vector<std::string> features =
        config.data.features ? *config.data.features : std::vector<std::string>{"x1", "x2", "x3"};
    const bvi::models::Model model = bvi::models::Model::build(config.model, features);
    bvi::spec::resolve_automatic(config, model.dim(), 1000);
  });
  return 0;
}
