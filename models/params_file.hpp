#pragma once
// The parameter points `bayes-vi eval` evaluates: a CSV with a header naming parameters
// (alpha, beta.1, ...), one point per row, on the constrained scale. Every model parameter must
// be there; other columns are returned by name so the caller can warn about them once.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "models/parameter_layout.hpp"

namespace bvi::models {

struct ParamsFile {
  Eigen::MatrixXd values;                    // points x parameters, in the layout's order
  std::vector<std::string> ignored_columns;  // header names that are not parameters
  std::string display_name;                  // the path, or "<stdin>"
};

// `path` "-" reads stdin (copied to a temporary file first, since the reader passes twice).
// Errors: no_input (66) when the file cannot be opened; data (65) at FILE:LINE for a missing
// parameter column, a bad number, a ragged row, or no rows.
ParamsFile read_params_file(const std::string& path, const ParameterLayout& layout);

}  // namespace bvi::models
