#pragma once
// Held-out metrics of binary predictions: mean log predictive density, accuracy at 0.5, Brier
// score and ROC AUC.
#include <Eigen/Core>

namespace bvi::models {

struct BinaryMetrics {
  long rows = 0;
  double mean_lpd = 0;  // mean over rows of log p(y | data), the predictive density
  double accuracy = 0;  // share of rows where (P(y=1) >= 0.5) equals y
  double brier = 0;     // mean of (P(y=1) - y)^2
  double auc = 0;       // P(score of a random positive > a random negative), ties counting half; NaN
                        // when only one class is present
};

BinaryMetrics binary_metrics(const Eigen::VectorXd& p, const Eigen::VectorXd& y, const Eigen::VectorXd& lpd);

}  // namespace bvi::models
