#pragma once
// The spdlog side of the Logger interface: messages go to stderr as one line each,
// "bayes-vi: warning: ...", so stdout stays clean for the JSON/CSV a command prints.
#include <memory>
#include <string>

#include "common/logger.hpp"

namespace bvi::cli {

enum class Verbosity { quiet, normal };

// Sets up the process-wide stderr logger. `level` is an spdlog level name (trace, debug, info,
// warn, error, off); Verbosity::quiet (--quiet) lowers it to error. Throws a usage error for an
// unknown level, quiet or not.
void setup_logging(const std::string& level, Verbosity verbosity = Verbosity::normal);

// The Logger that library code reports through.
Logger& cli_logger();

}  // namespace bvi::cli
