#pragma once
// The linear predictors of a fit's draws for a block of rows, shared by predict (expected
// responses) and loo (pointwise log likelihoods): eta(s, i) = alpha_s + x_i . beta_s + the rows'
// group effects, one GEMM per block. The offset is not included (the caller adds it per row).
#include <Eigen/Core>

#include "models/fit_result.hpp"
#include "models/prediction.hpp"
#include "models/prediction_family.hpp"

namespace bvi::models {

struct DrawPredictors {
  Eigen::MatrixXd beta;   // draws x D
  Eigen::VectorXd alpha;  // draws (zeros without an intercept)
  Eigen::VectorXd scale;  // the likelihood's own parameter (sigma, phi) per draw; ones if none
  Eigen::VectorXd second;  // its second parameter (student_t's nu) per draw; zeros if none

  // The draws' columns of alpha, beta.1 ... beta.D and sigma/phi; throws std::logic_error when
  // the draws lack them (read_fit and the caller's layout check make that a bug).
  DrawPredictors(const FitResult& fit, const PredictFamily& family, Eigen::Index features);

  // eta.leftCols(m) for rows [r0, r0 + m); eta must have at least m columns and S rows.
  void block(const FitResult& fit, const PredictRows& rows, Eigen::Index r0, Eigen::Index m,
             Eigen::MatrixXd& eta) const;
};

}  // namespace bvi::models
