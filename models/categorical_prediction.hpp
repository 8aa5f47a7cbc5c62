#pragma once
// predict for categorical_logit: per row, the posterior predictive probability of each category,
// P(y = k) = (1/S) sum_s softmax_k(eta_s) over the fit's S draws (eta_{s,ref} = 0, the others
// alpha.k + x . beta.k), the most probable category, and with known responses the metrics: log
// loss -mean_i log P(y_i), accuracy of the most probable category and the (multi-class) Brier
// score mean_i sum_k (P(y_i = k) - 1[y_i = k])^2, in [0, 2]. The linear predictors of a block of
// rows are one GEMM per category over all draws.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "models/fit_result.hpp"
#include "models/ordinal_prediction.hpp"
#include "models/prediction.hpp"

namespace bvi::models {

// NaN, undefined, for no rows or rows that all weigh 0 (prediction_metrics.hpp).
struct CategoricalMetrics {
  long rows = 0;
  double log_loss = kUndefinedMetric, accuracy = kUndefinedMetric, brier = kUndefinedMetric;
};

// K categories, `reference` the one whose linear predictor is 0. std::logic_error when the draws
// lack the categories' columns (the caller has checked the layout against the config).
OrdinalPredictions predict_categorical(const FitResult& fit, const PredictRows& rows, int categories, int reference,
                                       int threads);

// Weighted as ordinal_metrics: sum_i w_i m_i / sum_i w_i.
CategoricalMetrics categorical_metrics(const OrdinalPredictions& p, const Eigen::VectorXd& y,
                                       const Eigen::VectorXd* weight = nullptr);

// R x n replicated categories, replicate r from the fit's draw r (the Philox key of
// replicate_ordinal): the smallest k with sum_{j <= k} softmax_j(eta_r) >= u.
Eigen::MatrixXd replicate_categorical(const FitResult& fit, const PredictRows& rows,
                                      const std::vector<Eigen::Index>& record, Eigen::Index replicates,
                                      std::uint64_t seed, int categories, int reference, int threads);

}  // namespace bvi::models
