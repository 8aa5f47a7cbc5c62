#include "models/categorical_prediction.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "inference/rng/uniform_stream.hpp"
#include "models/category_draws.hpp"

namespace bvi::models {

namespace {

// f(row, prob) for every row of `rows`, prob the S x K per-draw category probabilities of that row:
// the rows in blocks of 256 (each block's linear predictors in one pass), blocks over `threads`
// OpenMP threads, each row seen by one thread.
template <class F>
void for_each_row(const CategoryDraws& draws, const PredictRows& rows, Eigen::Index S, int K, int threads, F&& f) {
  const Eigen::Index n = rows.x.rows();
  constexpr Eigen::Index kBlock = 256;
#pragma omp parallel num_threads(std::max(1, threads))
  {
    std::vector<Eigen::MatrixXd> eta(static_cast<std::size_t>(K - 1), Eigen::MatrixXd(S, kBlock));
    Eigen::MatrixXd prob(S, K);
#pragma omp for schedule(static)
    for (Eigen::Index r0 = 0; r0 < n; r0 += kBlock) {
      const Eigen::Index m = std::min(kBlock, n - r0);
      draws.linear_predictors(rows, r0, m, eta);
      for (Eigen::Index i = 0; i < m; ++i) {
        draws.softmax(eta, i, prob);
        f(r0 + i, prob);
      }
    }
  }
}

}  // namespace

OrdinalPredictions predict_categorical(const FitResult& fit, const PredictRows& rows, int K, int ref, int threads) {
  const Eigen::Index n = rows.x.rows(), S = fit.draws.rows(), D = rows.x.cols();
  const CategoryDraws draws(fit, S, D, K, ref);
  OrdinalPredictions out;
  out.prob.resize(n, K);
  out.category.resize(n);
  if (rows.y) out.lpd.resize(n);
  for_each_row(draws, rows, S, K, threads, [&](Eigen::Index row, const Eigen::MatrixXd& prob) {
    int best = 0;
    for (int k = 0; k < K; ++k) {
      out.prob(row, k) = prob.col(k).sum() / static_cast<double>(S);
      if (out.prob(row, k) > out.prob(row, best)) best = k;
    }
    out.category[row] = best + 1;
    if (rows.y) out.lpd[row] = std::log(out.prob(row, static_cast<Eigen::Index>((*rows.y)[row]) - 1));
  });
  return out;
}

CategoricalMetrics categorical_metrics(const OrdinalPredictions& p, const Eigen::VectorXd& y,
                                       const Eigen::VectorXd* weight) {
  const Eigen::Index K = p.prob.cols();
  const CategoryMetrics c = category_metrics(p, y, weight, [&](Eigen::Index i) {
    double sq = 0;
    for (Eigen::Index k = 0; k < K; ++k) {
      const double d = p.prob(i, k) - (y[i] == static_cast<double>(k + 1) ? 1.0 : 0.0);
      sq += d * d;
    }
    return sq;
  });
  return {c.rows, c.log_loss, c.accuracy, c.score};
}

Eigen::MatrixXd replicate_categorical(const FitResult& fit, const PredictRows& rows,
                                      const std::vector<Eigen::Index>& record, Eigen::Index R, std::uint64_t seed,
                                      int K, int ref, int threads) {
  if (R > fit.draws.rows()) throw std::logic_error("replicate_categorical: fewer draws than replicates");
  const Eigen::Index n = rows.x.rows(), D = rows.x.cols();
  const CategoryDraws draws(fit, R, D, K, ref);
  Eigen::MatrixXd out(R, n);
  for_each_row(draws, rows, R, K, threads, [&](Eigen::Index row, const Eigen::MatrixXd& prob) {
    const auto key = static_cast<std::uint64_t>(record[static_cast<std::size_t>(row)]);
    Eigen::Matrix<double, 1, 1> u;
    for (Eigen::Index r = 0; r < R; ++r) {
      rng::standard_uniform(seed, rng::Purpose::replicates, static_cast<std::uint64_t>(r), 0, key, u);
      int k = 0;
      double cdf = prob(r, 0);
      while (k + 1 < K && u(0, 0) > cdf) cdf += prob(r, ++k);
      out(r, row) = static_cast<double>(k + 1);
    }
  });
  return out;
}

}  // namespace bvi::models
