#pragma once
// bayes-vi loo CONFIG --fit DIR [--draws N] [--output FILE] [--pointwise FILE] [--subsample M
// [--seed S]]: PSIS-LOO (or, with --subsample, subsampling LOO's difference estimator) from the
// fit's Gaussian approximation (cli/loo_run.hpp): elpd_loo, p_loo, looic with their standard
// errors, Pareto k bands and the rows with k > 0.7 as JSON on stdout (and in FILE), the values of
// every row as CSV in --pointwise FILE.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/loo_run.hpp"
#include "inference/reduce/communicator.hpp"

namespace bvi::cli {

struct LooOptions {
  std::string config;
  std::string fit;
  long draws = 0;  // 0: every draw of the fit
  std::string output;
  std::string pointwise;
  std::optional<long> subsample;       // --subsample M: subsampling LOO on M rows
  std::optional<long long> seed;       // of the subsample; default: the config's inference.seed
  int threads = 0;
  std::string log_level = "warn";
};

CLI::App* setup_loo(CLI::App& app, LooOptions& options);
// Under mpirun every rank calls it; rank 0 writes the outputs.
int run_loo(const LooOptions& options, reduce::Communicator& comm);

// The loo document (what loo prints and compare reads); `pointwise_file` "" writes null.
nlohmann::ordered_json loo_document(const LooRun& run, const std::string& pointwise_file);

}  // namespace bvi::cli
