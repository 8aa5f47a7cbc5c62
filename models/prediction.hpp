#pragma once
// Posterior predictive summaries of a fit for rows of data: for each row, the mean, sd and 5 % /
// 95 % quantiles over the approximation's draws of the expected response E[y | theta] (P(y = 1)
// for the Bernoulli likelihoods, the expected successes n p for binomial_logit, the expected
// count for poisson_log, alpha + x . beta for normal); for the non-binary likelihoods also the
// sd of the posterior predictive distribution of y itself,
//   sqrt( Var_s E[y | theta_s] + mean_s Var[y | theta_s] )     (the law of total variance,
// over the S draws, so normal's includes sigma); and, when the row's response is known, its log
// predictive density log( (1/S) sum_s p(y | theta_s) ) with every constant.
#include <Eigen/Core>
#include <string>

#include "models/data/row_matrix.hpp"
#include "models/fit_result.hpp"

namespace bvi::models {

struct Predictions {
  Eigen::VectorXd mean, sd, q05, q95;
  Eigen::VectorXd predictive_sd;  // empty for the binary likelihoods
  Eigen::VectorXd lpd;            // empty when no response was given
};

// `x` holds the rows' features in the fit's order, already standardized as the fit was.
struct PredictRows {
  const data::RowMatrix<double>& x;
  const Eigen::VectorXd* y = nullptr;       // responses, when known
  const Eigen::VectorXd* trials = nullptr;  // binomial_logit: required
  const Eigen::VectorXd* offset = nullptr;  // offset + log exposure, when the fit had either
};

// Rows are processed in blocks on `threads` threads.
Predictions predict(const FitResult& fit, const PredictRows& rows, int threads);

// The likelihoods predict knows (predict throws config errors for others).
bool predict_supports(const std::string& likelihood);

}  // namespace bvi::models
