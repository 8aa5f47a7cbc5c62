#pragma once
// Per-parameter summaries of the fitted approximation on the constrained scale: mean, sd and the
// 5/50/95 % quantiles, all exact. For an unconstrained parameter q's marginal is normal. For a
// constrained one the quantiles map through the monotone transform, and the mean and sd are
// one-dimensional integrals: closed form for the log transforms (a lognormal's moments),
// adaptive quadrature for the interval ones.
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

// A correlation block's columns (Bound::cholesky_corr) have no per-column summary: pass them as
// unconstrained and summarize them from draws, as fit does.
std::vector<ParameterSummary> summarize_parameters(const Family& q, const std::vector<std::string>& names,
                                                   const std::vector<std::string>& labels,
                                                   const std::vector<ad::ColumnTransform>& transforms);

// Mean and sd of T(zeta), zeta ~ N(mu, sd^2), for a column transform T.
std::pair<double, double> constrained_moments(const ad::ColumnTransform& t, double mu, double sd);

}  // namespace bvi::vi
