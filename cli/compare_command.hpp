#pragma once
// bayes-vi compare A B ... [--format json|table] [--weights stacking]: models compared by PSIS-LOO
// as R's loo_compare prints them, best first (inference/diagnostics/loo_compare.hpp). Each
// argument is a loo document (loo --output FILE, written with --pointwise: the paired differences
// need every row) or a fit folder, whose loo is computed with the config its summary records.
// Models of different data (another number of rows, other rows, other responses) are refused
// (exit 65).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace bvi::cli {

struct CompareOptions {
  std::vector<std::string> inputs;
  std::string format = "json";  // json: JSON on stdout and the table on stderr; table: the table on stdout
  std::string weights;          // "" or "stacking"
  int threads = 0;
  std::string log_level = "warn";
};

CLI::App* setup_compare(CLI::App& app, CompareOptions& options);
int run_compare(const CompareOptions& options);

}  // namespace bvi::cli
