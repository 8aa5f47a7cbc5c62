#include "models/prediction_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace bvi::models {

BinaryMetrics binary_metrics(const Eigen::VectorXd& p, const Eigen::VectorXd& y, const Eigen::VectorXd& lpd) {
  BinaryMetrics m;
  const Eigen::Index n = p.size();
  m.rows = static_cast<long>(n);
  if (n == 0) return m;
  m.mean_lpd = lpd.mean();
  long correct = 0;
  double brier = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const bool predicted = p[i] >= 0.5, actual = y[i] > 0.5;
    correct += predicted == actual;
    brier += (p[i] - y[i]) * (p[i] - y[i]);
  }
  m.accuracy = static_cast<double>(correct) / static_cast<double>(n);
  m.brier = brier / static_cast<double>(n);
  // AUC by the Mann-Whitney statistic: average ranks of the scores, ties sharing their mean rank.
  std::vector<Eigen::Index> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return p[a] < p[b]; });
  std::vector<double> rank(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n;) {
    Eigen::Index j = i;
    while (j + 1 < n && p[order[j + 1]] == p[order[i]]) ++j;
    const double r = 0.5 * static_cast<double>(i + j) + 1.0;  // ranks from 1
    for (Eigen::Index k = i; k <= j; ++k) rank[static_cast<size_t>(order[k])] = r;
    i = j + 1;
  }
  double pos = 0, rank_sum = 0;
  for (Eigen::Index i = 0; i < n; ++i)
    if (y[i] > 0.5) {
      pos += 1;
      rank_sum += rank[static_cast<size_t>(i)];
    }
  const double neg = static_cast<double>(n) - pos;
  m.auc = pos > 0 && neg > 0 ? (rank_sum - pos * (pos + 1) / 2) / (pos * neg)
                             : std::numeric_limits<double>::quiet_NaN();
  return m;
}

}  // namespace bvi::models
