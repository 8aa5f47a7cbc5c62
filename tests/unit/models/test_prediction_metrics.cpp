// predict's held-out metrics when they are undefined: rows that all weigh 0 are no rows, and
// every weighted mean over them is 0 / 0. Each metric is then NaN (null in the metrics JSON, as the
// AUC of one class already was), never 0, which for RMSE, the Brier score or a log loss reads as a
// perfect prediction. Beside it, the same rows with one weight 1: the metrics of that row alone,
// worked out by hand.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>

#include "models/categorical_prediction.hpp"
#include "models/ordinal_prediction.hpp"
#include "models/prediction_metrics.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_prediction_metrics {

using namespace bvi;

TEST_CASE("prediction metrics: rows that all weigh 0 leave every metric undefined (NaN)") {
  const Eigen::VectorXd p = (Eigen::VectorXd(3) << 0.8, 0.3, 0.6).finished();
  const Eigen::VectorXd y = (Eigen::VectorXd(3) << 1.0, 0.0, 0.0).finished();
  const Eigen::VectorXd lpd = p.array().log();  // not y's: any numbers do
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(3);
  const Eigen::VectorXd one_row = (Eigen::VectorXd(3) << 0.0, 0.0, 1.0).finished();

  const models::BinaryMetrics b = models::binary_metrics(p, y, lpd, &zero);
  CHECK(b.rows == 3);
  CHECK(std::isnan(b.mean_lpd));
  CHECK(std::isnan(b.accuracy));
  CHECK(std::isnan(b.brier));
  CHECK(std::isnan(b.auc));
  // Row 3 alone: p = 0.6 for y = 0, wrong at 0.5, Brier 0.36, one class (no AUC).
  const models::BinaryMetrics b1 = models::binary_metrics(p, y, lpd, &one_row);
  CHECK(b1.mean_lpd == doctest::Approx(std::log(0.6)));
  CHECK(b1.accuracy == 0.0);
  CHECK(b1.brier == doctest::Approx(0.36));
  CHECK(std::isnan(b1.auc));

  const models::PointMetrics m = models::point_metrics(p, y, lpd, &zero);
  CHECK(m.rows == 3);
  CHECK(std::isnan(m.mean_lpd));
  CHECK(std::isnan(m.rmse));
  CHECK(std::isnan(m.mae));
  const models::PointMetrics m1 = models::point_metrics(p, y, lpd, &one_row);
  CHECK(m1.rmse == doctest::Approx(0.6));
  CHECK(m1.mae == doctest::Approx(0.6));

  // Three categories: row i's probabilities, its most probable category and log P(y_i).
  models::OrdinalPredictions pred;
  pred.prob = (Eigen::MatrixXd(3, 3) << 0.2, 0.5, 0.3, 0.6, 0.3, 0.1, 0.1, 0.1, 0.8).finished();
  pred.category = (Eigen::VectorXi(3) << 2, 1, 3).finished();
  const Eigen::VectorXd yk = (Eigen::VectorXd(3) << 2.0, 3.0, 3.0).finished();
  pred.lpd = (Eigen::VectorXd(3) << std::log(0.5), std::log(0.1), std::log(0.8)).finished();
  const models::OrdinalMetrics o = models::ordinal_metrics(pred, yk, &zero);
  CHECK(o.rows == 3);
  CHECK(std::isnan(o.log_loss));
  CHECK(std::isnan(o.accuracy));
  CHECK(std::isnan(o.rps));
  const models::CategoricalMetrics c = models::categorical_metrics(pred, yk, &zero);
  CHECK(std::isnan(c.log_loss));
  CHECK(std::isnan(c.accuracy));
  CHECK(std::isnan(c.brier));
  // Row 3 alone: y = 3 with P = (0.1, 0.1, 0.8): log loss -log 0.8, right; RPS
  // ((0.1 - 0)^2 + (0.2 - 0)^2) / 2 = 0.025; Brier 0.01 + 0.01 + 0.04 = 0.06.
  const models::OrdinalMetrics o1 = models::ordinal_metrics(pred, yk, &one_row);
  CHECK(o1.log_loss == doctest::Approx(-std::log(0.8)));
  CHECK(o1.accuracy == 1.0);
  CHECK(o1.rps == doctest::Approx(0.025));
  const models::CategoricalMetrics c1 = models::categorical_metrics(pred, yk, &one_row);
  CHECK(c1.brier == doctest::Approx(0.06));
}

}  // namespace test_prediction_metrics
