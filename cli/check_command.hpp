#pragma once
// bayes-vi check CONFIG: validates the config and the data and says what it found (rows,
// features, class balance, parameters, priors, inference settings) without running inference.
#include <CLI/CLI.hpp>
#include <string>

#include "inference/reduce/communicator.hpp"

namespace bvi::cli {

struct CheckOptions {
  std::string config;
  bool explain = false;
  bool reference = false;
  std::string log_level = "warn";
};

CLI::App* setup_check(CLI::App& app, CheckOptions& options);
int run_check(const CheckOptions& options, reduce::Communicator& comm);

}  // namespace bvi::cli
