#pragma once
// Held-out metrics: for binary predictions the mean log predictive density, accuracy at 0.5,
// Brier score and ROC AUC; for counts and real responses the mean log predictive density and the
// root mean squared and mean absolute errors of the predictive mean.
#include <Eigen/Core>
#include <limits>

namespace bvi::models {

inline constexpr double kUndefinedMetric = std::numeric_limits<double>::quiet_NaN();

struct BinaryMetrics {
  long rows = 0;
  double mean_lpd = kUndefinedMetric;  // mean over rows of log p(y | data), the predictive density
  double accuracy = kUndefinedMetric;  // share of rows where (P(y=1) >= 0.5) equals y
  double brier = kUndefinedMetric;     // mean of (P(y=1) - y)^2
  double auc = kUndefinedMetric;       // P(score of a random positive > a random negative), ties counting
                                       // half; NaN also when only one class is present
};

struct PointMetrics {
  long rows = 0;
  double mean_lpd = kUndefinedMetric;  // as BinaryMetrics
  double rmse = kUndefinedMetric;      // sqrt(mean of (E[y] - y)^2)
  double mae = kUndefinedMetric;       // mean of |E[y] - y|
};

// With row weights `w` (the fit's weights column in the predicted file; null: none) every mean is
// a weighted mean, sum_i w_i f_i / sum_i w_i, and the AUC counts each (positive, negative) pair
// with weight w_i w_j: the metrics of the data with each row repeated w_i times, for integer w.
// No rows, or rows that all weigh 0, leave every mean undefined: NaN (null in the metrics JSON, as
// the AUC of one class), never a 0 that reads as a perfect score.
PointMetrics point_metrics(const Eigen::VectorXd& mean, const Eigen::VectorXd& y, const Eigen::VectorXd& lpd,
                           const Eigen::VectorXd* w = nullptr);

BinaryMetrics binary_metrics(const Eigen::VectorXd& p, const Eigen::VectorXd& y, const Eigen::VectorXd& lpd,
                             const Eigen::VectorXd* w = nullptr);

}  // namespace bvi::models
