#pragma once
// Per-parameter summaries of the fitted approximation on the constrained scale: mean, sd and the
// 5/50/95 % quantiles. For an unconstrained parameter they are exact (q's marginal is normal);
// Monte Carlo over draws is never needed for them.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "inference/families/family.hpp"

namespace bvi::vi {

struct ParameterSummary {
  std::string name;
  std::string label;  // e.g. the feature name of a coefficient; may be empty
  double mean, sd, q05, q50, q95;
};

std::vector<ParameterSummary> summarize_parameters(const Family& q, const std::vector<std::string>& names,
                                                   const std::vector<std::string>& labels);

}  // namespace bvi::vi
