#pragma once
// predict for the ordinal likelihoods: per row, the posterior predictive probability of each
// category, P(y = k) = (1/S) sum_s [F(c_sk - eta_s) - F(c_s,k-1 - eta_s)] over the fit's S draws
// (cutpoints and linear predictors drawn together), the most probable category, and with known
// responses the metrics: log loss -mean_i log P(y_i), accuracy of the most probable category,
// and the ranked probability score mean_i (1 / (K - 1)) sum_{k < K} (P(y_i <= k) - 1[y_i <= k])^2
// (Epstein 1969, normalized to [0, 1]).
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "models/fit_result.hpp"
#include "models/prediction.hpp"
#include "models/prediction_metrics.hpp"

namespace bvi::models {

struct OrdinalPredictions {
  Eigen::MatrixXd prob;      // rows x K, each row summing to 1
  Eigen::VectorXi category;  // the most probable category, 1 ... K (the lowest on a tie)
  Eigen::VectorXd lpd;       // log P(y_i), when the responses are known
};

// As the other metrics (prediction_metrics.hpp): NaN, undefined, for no rows or rows that all
// weigh 0.
struct OrdinalMetrics {
  long rows = 0;
  double log_loss = kUndefinedMetric, accuracy = kUndefinedMetric, rps = kUndefinedMetric;
};

// The metrics every per-category prediction has (log loss and accuracy of the most probable
// category) and the weighted mean of a per-row `score(i)` (the ranked probability score, the Brier
// score). With `weight` (non-negative, one per row): sum_i w_i m_i / sum_i w_i, as repeating row i
// w_i times would give; a row of weight 0 is left out of the sums (its log P(y) may be -inf).
struct CategoryMetrics {
  long rows = 0;
  double log_loss = kUndefinedMetric, accuracy = kUndefinedMetric, score = kUndefinedMetric;
};

template <class Score>
CategoryMetrics category_metrics(const OrdinalPredictions& p, const Eigen::VectorXd& y, const Eigen::VectorXd* weight,
                                 Score score) {
  CategoryMetrics m;
  const Eigen::Index n = y.size();
  m.rows = static_cast<long>(n);
  if (n == 0) return m;
  double loss = 0, hits = 0, scored = 0, total = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double w = weight ? (*weight)[i] : 1.0;
    total += w;
    if (w == 0) continue;
    loss -= w * p.lpd[i];
    if (p.category[i] == static_cast<int>(y[i])) hits += w;
    scored += w * score(i);
  }
  if (!(total > 0)) return m;  // every row weighs 0: undefined, not 0 / 0 = -nan
  m.log_loss = loss / total;
  m.accuracy = hits / total;
  m.score = scored / total;
  return m;
}

bool is_ordinal(const std::string& likelihood);

// Throws config errors for a likelihood that is not ordinal; std::logic_error when the draws lack
// the cutpoints.
OrdinalPredictions predict_ordinal(const FitResult& fit, const PredictRows& rows, int threads);

// Log loss, accuracy and ranked probability score over the rows; with `weight` (non-negative, one
// per row), weighted means: sum_i w_i m_i / sum_i w_i, as repeating row i w_i times would give.
OrdinalMetrics ordinal_metrics(const OrdinalPredictions& p, const Eigen::VectorXd& y,
                               const Eigen::VectorXd* weight = nullptr);

// R x n replicated categories, replicate r from the fit's draw r, as replicate_rows does for the
// other likelihoods (the same Philox key (seed, replicates, r, record)): the smallest k with
// P(y <= k | theta_r) = F(c_rk - eta_ri) >= u.
Eigen::MatrixXd replicate_ordinal(const FitResult& fit, const PredictRows& rows,
                                  const std::vector<Eigen::Index>& record, Eigen::Index replicates,
                                  std::uint64_t seed, int threads);

}  // namespace bvi::models
