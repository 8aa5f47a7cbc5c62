#pragma once
// bayes-vi predict CONFIG --fit DIR [--data NEW.csv] [--draws N] [--metrics FILE]: applies a fit
// made by `fit --output DIR` to rows of data; per row, the posterior predictive mean of
// P(y = 1), its sd and 5 % / 95 % quantiles, as CSV on stdout; held-out metrics when the rows
// have the response. With --replicates N FILE, also N replicated datasets y_rep (one per draw of
// the fit) as CSV for posterior predictive checks (docs/ppc.md).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <utility>

namespace bvi::cli {

struct PredictOptions {
  std::string config;
  std::string fit;
  std::string data;
  long draws = 0;  // 0: every draw of the fit
  std::string metrics;
  std::pair<long, std::string> replicates{0, ""};  // N and FILE of --replicates
  std::optional<long long> seed;                   // for new groups' effects; default: the fit's seed
  int threads = 0;
  std::string log_level = "warn";
};

CLI::App* setup_predict(CLI::App& app, PredictOptions& options);
int run_predict(const PredictOptions& options);

}  // namespace bvi::cli
