#pragma once
// bayes-vi fit CONFIG [--output DIR] [--threads N] [--seed N] [--quiet] [--log-level L]:
// variational inference; the summary JSON on stdout, files in DIR.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "inference/reduce/communicator.hpp"

namespace bvi::cli {

struct FitOptions {
  std::string config;
  std::string output;
  int threads = 0;
  std::optional<long long> seed;
  bool quiet = false;
  std::string log_level = "info";
  bool composed = false;   // hidden: the generic AD path instead of the fused likelihood
  std::string checkpoint;  // write the run state here every checkpoint_every iterations and on SIGTERM
  long checkpoint_every = 100;
  std::string resume;              // continue from this checkpoint
  bool skip_memory_check = false;  // run even when the estimated peak exceeds the memory limit
};

CLI::App* setup_fit(CLI::App& app, FitOptions& options);
int run_fit(const FitOptions& options, reduce::Communicator& comm);

}  // namespace bvi::cli
