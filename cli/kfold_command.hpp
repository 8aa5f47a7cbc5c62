#pragma once
// bayes-vi kfold CONFIG --folds K [--group COLUMN] [--seed S] --output DIR: K-fold cross-validation
// by refitting (docs/loo.md): each fold's rows held out, the model fitted to the others, and each
// held-out row's log predictive density log mean_s p(y_i | theta_s) from that fit's draws.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "inference/reduce/communicator.hpp"

namespace bvi::cli {

struct KfoldOptions {
  std::string config;
  int folds = 0;  // 0: with --group, one fold per level
  std::string group;
  std::optional<long long> seed;  // of the partition; default: the config's inference.seed
  std::string output;
  int threads = 0;
  std::string log_level = "warn";
};

CLI::App* setup_kfold(CLI::App& app, KfoldOptions& options);
int run_kfold(const KfoldOptions& options, reduce::Communicator& comm);

}  // namespace bvi::cli
