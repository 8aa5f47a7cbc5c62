#pragma once
// bayes-vi simulate --rows N --features D --seed S [--likelihood NAME] [--intercept A]
//                   [--sigma S | --phi P | --shape K] [--trials T] [--output FILE] [--truth FILE]
//                   [--threads N]:
// a synthetic regression dataset (models/data/simulate.hpp), logistic by default, as CSV, on
// stdout or in FILE, and its true values in TRUTH (by default FILE with .csv replaced by
// .truth.csv).
#include <CLI/CLI.hpp>
#include <limits>
#include <string>

namespace bvi::cli {

struct SimulateOptions {
  long long rows = 0;
  int features = 0;
  long long seed = 0;
  std::string output;  // empty: stdout
  std::string truth;   // empty: derived from output, or not written when output is stdout
  int threads = 0;
  std::string likelihood = "bernoulli_logit";
  // NaN: not given (no intercept; the likelihood's default parameter).
  double intercept = std::numeric_limits<double>::quiet_NaN();
  double sigma = std::numeric_limits<double>::quiet_NaN();
  double phi = std::numeric_limits<double>::quiet_NaN();
  double shape = std::numeric_limits<double>::quiet_NaN();
  double nu = std::numeric_limits<double>::quiet_NaN();  // student_t's degrees of freedom
  long long trials = 0;  // 0: not given (10 for binomial_logit)
  int levels = 0;        // 0: not given (4 for the ordinal likelihoods)
};

CLI::App* setup_simulate(CLI::App& app, SimulateOptions& options);
int run_simulate(const SimulateOptions& options);

// Where the true coefficients go when --truth is not given: `data.csv` -> `data.truth.csv`,
// any other name gets `.truth.csv` appended.
std::string default_truth_path(const std::string& output);

}  // namespace bvi::cli
