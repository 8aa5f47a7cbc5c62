#include "models/prediction_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace bvi::models {

namespace {

// Weighted AUC: the share of (positive, negative) pairs, each weighing w_i w_j, where the
// positive scores higher, ties counting half. Scores in ascending order, tie group by tie group:
// the group's positive weight times (the negative weight below it + half the group's own).
double weighted_auc(const Eigen::VectorXd& p, const Eigen::VectorXd& y, const Eigen::VectorXd& w) {
  const Eigen::Index n = p.size();
  std::vector<Eigen::Index> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return p[a] < p[b]; });
  double below = 0, pairs = 0, pos = 0, neg = 0;
  for (Eigen::Index i = 0; i < n;) {
    Eigen::Index j = i;
    while (j + 1 < n && p[order[j + 1]] == p[order[i]]) ++j;
    double gp = 0, gn = 0;
    for (Eigen::Index k = i; k <= j; ++k) (y[order[k]] > 0.5 ? gp : gn) += w[order[k]];
    pairs += gp * (below + 0.5 * gn);
    below += gn;
    pos += gp;
    neg += gn;
    i = j + 1;
  }
  return pos > 0 && neg > 0 ? pairs / (pos * neg) : std::numeric_limits<double>::quiet_NaN();
}

PointMetrics weighted_point_metrics(const Eigen::VectorXd& mean, const Eigen::VectorXd& y,
                                    const Eigen::VectorXd& lpd, const Eigen::VectorXd& w) {
  PointMetrics m;
  m.rows = static_cast<long>(y.size());
  const double W = w.sum();
  if (m.rows == 0 || !(W > 0)) return m;  // undefined: NaN
  m.mean_lpd = w.dot(lpd) / W;
  m.rmse = std::sqrt(w.dot((mean - y).cwiseAbs2()) / W);
  m.mae = w.dot((mean - y).cwiseAbs()) / W;
  return m;
}

}  // namespace

PointMetrics point_metrics(const Eigen::VectorXd& mean, const Eigen::VectorXd& y,
                           const Eigen::VectorXd& lpd, const Eigen::VectorXd* w) {
  if (w) return weighted_point_metrics(mean, y, lpd, *w);
  PointMetrics m;
  m.rows = static_cast<long>(y.size());
  if (m.rows == 0) return m;
  m.mean_lpd = lpd.mean();
  m.rmse = std::sqrt((mean - y).squaredNorm() / static_cast<double>(m.rows));
  m.mae = (mean - y).cwiseAbs().mean();
  return m;
}

BinaryMetrics binary_metrics(const Eigen::VectorXd& p, const Eigen::VectorXd& y, const Eigen::VectorXd& lpd,
                             const Eigen::VectorXd* w) {
  BinaryMetrics m;
  const Eigen::Index n = p.size();
  m.rows = static_cast<long>(n);
  if (n == 0) return m;
  if (w) {
    const double W = w->sum();
    if (!(W > 0)) return m;  // every row weighs 0: undefined, NaN
    double correct = 0, brier = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      correct += (p[i] >= 0.5) == (y[i] > 0.5) ? (*w)[i] : 0.0;
      brier += (*w)[i] * (p[i] - y[i]) * (p[i] - y[i]);
    }
    m.mean_lpd = w->dot(lpd) / W;
    m.accuracy = correct / W;
    m.brier = brier / W;
    m.auc = weighted_auc(p, y, *w);
    return m;
  }
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
