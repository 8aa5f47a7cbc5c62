#pragma once
// Per-parameter summaries of the fitted approximation on the constrained scale: mean, sd and the
// 5/50/95 % quantiles. For an unconstrained parameter they are exact (q's marginal is normal).
// For a constrained one the quantiles are still exact (the transforms are monotone, so they map
// quantiles to quantiles), and the mean and sd are Monte Carlo averages over draws from q.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "inference/ad/ops/constrain.hpp"
#include "inference/families/family.hpp"

namespace bvi::vi {

struct ParameterSummary {
  std::string name;
  std::string label;  // e.g. the feature name of a coefficient; may be empty
  double mean, sd, q05, q50, q95;
};

// `draws` (unconstrained, rows are draws) are used for the mean and sd of constrained columns.
std::vector<ParameterSummary> summarize_parameters(const Family& q, const std::vector<std::string>& names,
                                                   const std::vector<std::string>& labels,
                                                   const std::vector<ad::ColumnTransform>& transforms,
                                                   const Eigen::Ref<const Eigen::MatrixXd>& draws);

}  // namespace bvi::vi
