#pragma once
// bayes-vi eval CONFIG --params FILE|- [--grad] [--threads N]: the log joint density at many
// parameter points in one batched evaluation, as CSV on stdout.
#include <CLI/CLI.hpp>
#include <string>

#include "inference/reduce/communicator.hpp"

namespace bvi::cli {

struct EvalOptions {
  std::string config;
  std::string params;
  bool grad = false;
  int threads = 0;
  std::string log_level = "warn";
};

CLI::App* setup_eval(CLI::App& app, EvalOptions& options);
int run_eval(const EvalOptions& options, reduce::Communicator& comm);

}  // namespace bvi::cli
