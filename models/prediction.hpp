#pragma once
// Posterior predictive summaries of a fit for rows of data: for each row, the mean, sd and 5 % /
// 95 % quantiles over the approximation's draws of the expected response (P(y = 1) for a
// Bernoulli model), and, when the row's response is known, its log predictive density
// log( (1/S) sum_s p(y | theta_s) ).
#include <Eigen/Core>
#include <string>

#include "models/data/row_matrix.hpp"
#include "models/fit_result.hpp"

namespace bvi::models {

struct Predictions {
  Eigen::VectorXd mean, sd, q05, q95;
  Eigen::VectorXd lpd;  // empty when no response was given
};

// `x` holds the rows' features in the fit's order, already standardized as the fit was; `y`
// (optional) their responses. Rows are processed in blocks on `threads` threads.
Predictions predict(const FitResult& fit, const data::RowMatrix<double>& x, const Eigen::VectorXd* y,
                    int threads);

// The likelihoods predict knows (throws config errors for others).
bool predict_supports(const std::string& likelihood);

}  // namespace bvi::models
