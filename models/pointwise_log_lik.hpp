#pragma once
// log p(y_i | theta_s) for a fit's draws theta_s and rows with a response, a block of rows at a
// time (the pointwise log likelihood matrix loo() takes, never held whole): every normalizing
// constant included, as predict's log predictive density has it (prediction_family.hpp).
#include <Eigen/Core>

#include "models/draw_predictors.hpp"
#include "models/fit_result.hpp"
#include "models/prediction.hpp"
#include "models/prediction_family.hpp"

namespace bvi::models {

class PointwiseLogLik {
 public:
  // `fit` and `rows` must outlive this; rows.y is required (std::logic_error otherwise), and the
  // likelihood must be one predict supports (config error 78 otherwise).
  PointwiseLogLik(const FitResult& fit, const PredictRows& rows);

  Eigen::Index draws() const { return fit_.draws.rows(); }
  Eigen::Index rows() const { return rows_.x.rows(); }

  // out(s, i) = log p(y_{r0 + i} | theta_s) for i < m; `eta` and `out` are resized to S x m when
  // smaller (a caller reusing them allocates once).
  void block(Eigen::Index r0, Eigen::Index m, Eigen::MatrixXd& eta, Eigen::MatrixXd& out) const;

 private:
  const FitResult& fit_;
  const PredictRows& rows_;
  PredictFamily family_;
  DrawPredictors predictors_;
};

}  // namespace bvi::models
