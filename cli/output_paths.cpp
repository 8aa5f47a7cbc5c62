#include "cli/output_paths.hpp"

#include <filesystem>
#include <system_error>

#include "common/error.hpp"

namespace bvi::cli {

namespace fs = std::filesystem;

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(a, ea), cb = fs::weakly_canonical(b, eb);
  if (!ea && !eb && ca == cb) return true;
  return fs::equivalent(a, b, ea) && !ea;
}

void refuse_clashing_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [name, path] = outputs[i];
    if (path.empty()) continue;
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].second.empty() && same_file(outputs[j].second, path))
        throw usage_error(outputs[j].first + " and " + name + " name the same file '" + path + "'");
    for (const auto& [what, input] : inputs)
      if (!input.empty() && same_file(input, path))
        throw usage_error(name + " '" + path + "' is " + what + ", which this command reads");
  }
}

}  // namespace bvi::cli
