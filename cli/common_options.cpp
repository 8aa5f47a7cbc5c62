#include "cli/common_options.hpp"

#include <omp.h>

namespace bvi::cli {

void add_threads_option(CLI::App& cmd, int& threads) {
  cmd.add_option("--threads", threads, "Worker threads (default: the cores available)")
      ->check(CLI::Range(1, 4096))
      ->type_name("N");
}

int resolve_threads(int requested) {
  return requested > 0 ? requested : omp_get_max_threads();
}

CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); }, "");
}

void add_log_level_option(CLI::App& cmd, std::string& level) {
  cmd.add_option("--log-level", level, "Log level on stderr: trace, debug, info, warn, error, off")
      ->type_name("L")
      ->capture_default_str();
}

}  // namespace bvi::cli
