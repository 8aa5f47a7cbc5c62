#pragma once
// A fit as `bayes-vi fit --output DIR` left it: the draws (draws.csv, constrained scale) and what
// the summary recorded about the data (features, response, standardization, likelihood).
#include <Eigen/Core>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bvi::models {

struct FitResult {
  std::string dir;
  std::vector<std::string> names;  // parameter columns of draws.csv, CmdStan names
  Eigen::MatrixXd draws;           // draws x parameters (the mean row of draws.csv excluded)
  Eigen::VectorXd log_p, log_g;    // per draw: draws.csv's log_p__ and log_g__ (NaN where unreadable)
  std::vector<std::string> features;
  std::string response;
  std::string likelihood;
  bool intercept = false;
  Eigen::VectorXd center, scale;  // empty unless the fit standardized its features
  nlohmann::json design;          // the summary's data.design (null for fits made before it)
  long long seed = 0;             // the fit's seed
  long long rows = -1;            // the summary's rows (-1 when absent)
  std::string response_hash;      // the summary's data.response_hash (empty for fits made before it)
  std::string row_hash;           // the summary's data.row_hash (empty for fits made before it)
  std::vector<std::string> levels;  // the summary's data.levels: an ordinal response's labels (else empty)
};

// Reads DIR/summary.json and DIR/draws.csv. Errors: no_input (66) when they cannot be read,
// data (65, FILE:LINE) when they are not what bayes-vi fit writes.
FitResult read_fit(const std::string& dir);

}  // namespace bvi::models
