#include "cli/logging.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/error.hpp"

namespace bvi::cli {

namespace {

class SpdlogLogger final : public Logger {
 public:
  void debug(const std::string& msg) override { spdlog::debug(msg); }
  void info(const std::string& msg) override { spdlog::info(msg); }
  void warn(const std::string& msg) override { spdlog::warn(msg); }
};

}  // namespace

void setup_logging(const std::string& level, Verbosity verbosity) {
  auto lvl = spdlog::level::from_str(level);
  // from_str answers "off" for anything it does not know; only accept "off" when asked for.
  if (lvl == spdlog::level::off && level != "off")
    throw usage_error("--log-level: unknown level '" + level + "' (trace, debug, info, warn, error, off)");
  if (verbosity == Verbosity::quiet) lvl = std::max(lvl, spdlog::level::err);
  auto logger = spdlog::stderr_logger_st("bayes-vi");
  logger->set_pattern("bayes-vi: %l: %v");
  logger->set_level(lvl);
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

Logger& cli_logger() {
  static SpdlogLogger logger;
  return logger;
}

}  // namespace bvi::cli
