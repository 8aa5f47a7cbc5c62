#pragma once
// bayes-vi fit CONFIG [--output DIR] [--threads N] [--seed N] [--quiet] [--log-level L]:
// variational inference; the summary JSON on stdout, files in DIR.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace bvi::cli {

struct FitOptions {
  std::string config;
  std::string output;
  int threads = 0;
  std::optional<long long> seed;
  bool quiet = false;
  std::string log_level = "info";
  bool composed = false;  // hidden: the generic AD path instead of the fused likelihood
};

CLI::App* setup_fit(CLI::App& app, FitOptions& options);
int run_fit(const FitOptions& options);

}  // namespace bvi::cli
