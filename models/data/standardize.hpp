#pragma once
// Centring and scaling features: x = (raw - mean) / sd with the sample sd (ddof = 1), as R's
// scale() and pandas' std() do (sklearn's StandardScaler divides by the ddof = 0 sd instead).
//
// The statistics are two passes, each a per-feature sum over rows in file order accumulated in
// double: first the mean, then the squared deviations from it (stabler than the sum of squares
// minus n mean^2). Both passes are exposed so a distributed run can compute them per chunk of
// rows and combine the partial sums in chunk order before the next pass. For the same bits
// whatever the rank count, the chunks must not depend on it (e.g. the 1024-row checkpoint
// blocks), and the single-process path must then sum per chunk the same way.
#include <Eigen/Core>

#include "models/data/row_matrix.hpp"

namespace bvi::data {

struct FeatureStats {
  Eigen::Index rows = 0;
  Eigen::VectorXd mean, sd;  // sd = 0 when rows < 2
  Eigen::VectorXd min, max;  // a feature is constant iff min == max
  bool constant(Eigen::Index j) const { return min[j] == max[j]; }
};

// Pass 1 partial: sum over rows of x(i, j), and the extremes.
template <class T>
void column_sums(const Eigen::Ref<const RowMatrix<T>>& x, Eigen::VectorXd& sum, Eigen::VectorXd& min,
                 Eigen::VectorXd& max);

// Pass 2 partial: sum over rows of (x(i, j) - mean[j])^2.
template <class T>
Eigen::VectorXd squared_deviation_sums(const Eigen::Ref<const RowMatrix<T>>& x, const Eigen::VectorXd& mean);

// Both passes over the rows of x.
template <class T>
FeatureStats compute_feature_stats(const RowMatrix<T>& x);

// x(i, j) = (x(i, j) - center[j]) / scale[j], evaluated in double and rounded once to T.
template <class T>
void apply_standardization(RowMatrix<T>& x, const Eigen::VectorXd& center, const Eigen::VectorXd& scale);

}  // namespace bvi::data
