#pragma once
// The fit's outputs (SPEC.md "The summary document", "Files"): the summary JSON, draws.csv in
// CmdStan's variational layout, and elbo.csv.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "inference/advi.hpp"
#include "inference/final_approximation.hpp"
#include "inference/posterior_summary.hpp"
#include "models/design/design.hpp"
#include "models/spec/config.hpp"

namespace bvi::cli {

struct FitRecord {
  const spec::Config* config = nullptr;
  std::vector<std::string> names;  // CmdStan column names: alpha, beta.1, ...
  std::vector<vi::ParameterSummary> parameters;
  const vi::AdviResult* run = nullptr;
  const vi::FinalReport* final = nullptr;
  Eigen::MatrixXd constrained_draws;  // the output draws on the constrained scale
  long long seed = 0;
  int threads = 1, ranks = 1;
  long long rows = 0, features = 0;
  // What `predict` needs to apply the fit to new rows.
  std::vector<std::string> feature_names;
  std::string response;
  Eigen::VectorXd center, scale;  // empty unless the features were standardized
  const models::design::Design* design = nullptr;  // variables, levels, terms, groups
  long long dropped_rows = 0;                      // left out for missing values
  std::string response_hash;                       // models/response_hash.hpp, for loo and compare
  std::string row_hash;                            // the same, order-sensitive (row_text())
  std::string config_path;                         // absolute: where compare finds the fit's config
  double seconds = 0;
  // The exact method's: passes over the data, the final fixed-point residual, and how each
  // prior term's expectation was taken.
  long passes = 0;
  double grad_residual = 0;
  std::vector<std::pair<std::string, std::string>> prior_methods;
};

// Replaces the summaries of `columns` (e.g. correlations, whose transform is not one column's)
// by Monte Carlo ones over `draws` (rows are draws, on the outputs' scale): mean, sd and the
// 5/50/95 % quantiles (numpy's linear interpolation). Parameter j is draws' column j - first.
void summarize_from_draws(std::vector<vi::ParameterSummary>& summaries, const Eigen::MatrixXd& draws,
                          const std::vector<Eigen::Index>& columns, Eigen::Index first = 0);

// Keys in SPEC.md's order, then the extras, so the document reads top-down.
nlohmann::ordered_json summary_json(const FitRecord& r);
std::string draws_csv(const FitRecord& r);
std::string elbo_csv(const FitRecord& r);

}  // namespace bvi::cli
