#include "models/ordinal_prediction.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "inference/ad/ops/ordinal_kernel.hpp"
#include "inference/math/log_ndtr.hpp"
#include "inference/rng/uniform_stream.hpp"
#include "models/draw_predictors.hpp"
#include "models/ordinal_draws.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

bool is_ordinal(const std::string& likelihood) {
  return spec::has_cutpoints(likelihood);
}

OrdinalPredictions predict_ordinal(const FitResult& fit, const PredictRows& rows, int threads) {
  const OrdinalDraws ordinal(fit, rows.x.cols());
  const int K = ordinal.K;
  const DrawPredictors& predictors = ordinal.predictors;
  const Eigen::Index n = rows.x.rows(), S = fit.draws.rows();
  OrdinalPredictions out;
  out.prob.resize(n, K);
  out.category.resize(n);
  if (rows.y) out.lpd.resize(n);
  constexpr Eigen::Index kBlock = 256;
#pragma omp parallel num_threads(std::max(1, threads))
  {
    Eigen::MatrixXd eta(S, kBlock);
    std::vector<double> p(static_cast<std::size_t>(K));
#pragma omp for schedule(static)
    for (Eigen::Index r0 = 0; r0 < n; r0 += kBlock) {
      const Eigen::Index m = std::min(kBlock, n - r0);
      predictors.block(fit, rows, r0, m, eta);
      for (Eigen::Index i = 0; i < m; ++i) {
        const Eigen::Index row = r0 + i;
        const double off = rows.offset ? (*rows.offset)[row] : 0.0;
        std::fill(p.begin(), p.end(), 0.0);
        for (Eigen::Index s = 0; s < S; ++s)
          for (int k = 0; k < K; ++k)
            p[static_cast<std::size_t>(k)] += std::exp(ordinal.log_prob(k, s, eta(s, i) + off));
        int best = 0;
        for (int k = 0; k < K; ++k) {
          out.prob(row, k) = p[static_cast<std::size_t>(k)] / static_cast<double>(S);
          if (out.prob(row, k) > out.prob(row, best)) best = k;
        }
        out.category[row] = best + 1;
        if (rows.y) out.lpd[row] = std::log(out.prob(row, static_cast<Eigen::Index>((*rows.y)[row]) - 1));
      }
    }
  }
  return out;
}

OrdinalMetrics ordinal_metrics(const OrdinalPredictions& p, const Eigen::VectorXd& y, const Eigen::VectorXd* weight) {
  const Eigen::Index K = p.prob.cols();
  const CategoryMetrics c = category_metrics(p, y, weight, [&](Eigen::Index i) {
    double cum = 0, sq = 0;
    for (Eigen::Index k = 0; k + 1 < K; ++k) {
      cum += p.prob(i, k);
      const double observed = y[i] <= static_cast<double>(k + 1) ? 1.0 : 0.0;
      sq += (cum - observed) * (cum - observed);
    }
    return K > 1 ? sq / static_cast<double>(K - 1) : 0.0;
  });
  return {c.rows, c.log_loss, c.accuracy, c.score};
}

Eigen::MatrixXd replicate_ordinal(const FitResult& full_fit, const PredictRows& full_rows,
                                  const std::vector<Eigen::Index>& record, Eigen::Index R, std::uint64_t seed,
                                  int threads) {
  const ad::detail::OrdinalLink link = OrdinalDraws::link_of(full_fit);
  if (R > full_fit.draws.rows()) throw std::logic_error("replicate_ordinal: fewer draws than replicates");
  FitResult fit;
  fit.names = full_fit.names;
  fit.likelihood = full_fit.likelihood;
  fit.draws = full_fit.draws.topRows(R);
  PredictRows rows = full_rows;
  for (PredictGroupEffects& g : rows.groups) g.new_effects = Eigen::MatrixXd(g.new_effects.topRows(R));
  const OrdinalDraws ordinal(fit, rows.x.cols());
  const Eigen::Index c0 = ordinal.c0, J = ordinal.K - 1;
  const DrawPredictors& predictors = ordinal.predictors;
  const Eigen::Index n = rows.x.rows();
  Eigen::MatrixXd out(R, n);
  constexpr Eigen::Index kBlock = 256;
#pragma omp parallel num_threads(std::max(1, threads))
  {
    Eigen::MatrixXd eta(R, kBlock);
    Eigen::Matrix<double, 1, 1> u;
#pragma omp for schedule(static)
    for (Eigen::Index r0 = 0; r0 < n; r0 += kBlock) {
      const Eigen::Index m = std::min(kBlock, n - r0);
      predictors.block(fit, rows, r0, m, eta);
      for (Eigen::Index i = 0; i < m; ++i) {
        const Eigen::Index row = r0 + i;
        const double off = rows.offset ? (*rows.offset)[row] : 0.0;
        const auto key = static_cast<std::uint64_t>(record[static_cast<std::size_t>(row)]);
        for (Eigen::Index r = 0; r < R; ++r) {
          rng::standard_uniform(seed, rng::Purpose::replicates, static_cast<std::uint64_t>(r), 0, key, u);
          const double e = eta(r, i) + off;
          Eigen::Index k = 0;  // categories 0 ... J (0-based): the first whose CDF reaches u
          for (; k < J; ++k) {
            const double z = fit.draws(r, c0 + k) - e;
            const double cdf = link == ad::detail::OrdinalLink::logit ? ad::detail::ordinal_expit(z)
                                                                      : std::exp(math::log_ndtr(z));
            if (u(0, 0) <= cdf) break;
          }
          out(r, row) = static_cast<double>(k + 1);
        }
      }
    }
  }
  return out;
}

}  // namespace bvi::models
