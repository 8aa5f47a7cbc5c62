#pragma once
// bayes-vi simulate --rows N --features D --seed S [--output FILE] [--truth FILE] [--threads N]:
// a synthetic logistic-regression dataset (models/data/simulate.hpp) as CSV, on stdout or in
// FILE, and its true coefficients in TRUTH (by default FILE with .csv replaced by .truth.csv).
#include <CLI/CLI.hpp>
#include <string>

namespace bvi::cli {

struct SimulateOptions {
  long long rows = 0;
  int features = 0;
  long long seed = 0;
  std::string output;  // empty: stdout
  std::string truth;   // empty: derived from output, or not written when output is stdout
  int threads = 0;
};

CLI::App* setup_simulate(CLI::App& app, SimulateOptions& options);
int run_simulate(const SimulateOptions& options);

// Where the true coefficients go when --truth is not given: `data.csv` -> `data.truth.csv`,
// any other name gets `.truth.csv` appended.
std::string default_truth_path(const std::string& output);

}  // namespace bvi::cli
