#include "models/prediction.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/error.hpp"
#include "inference/rng/normal_stream.hpp"
#include "models/draw_predictors.hpp"
#include "models/prediction_family.hpp"

namespace bvi::models {

namespace {

// The q-quantile of sorted values, linear between order statistics (numpy's default, R type 7).
double quantile_sorted(const std::vector<double>& v, double q) {
  const double h = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}


}  // namespace

Eigen::MatrixXd draw_new_groups(const Eigen::MatrixXd& draws, Eigen::Index sd_column, Eigen::Index cor_column,
                                Eigen::Index K, Eigen::Index new_groups, std::uint64_t seed, int factor) {
  const Eigen::Index S = draws.rows();
  Eigen::MatrixXd z(S, new_groups * K), out(S, new_groups * K);
  if (new_groups == 0) return out;
  // Step 1000 + factor of the simulation stream: a stream of its own for each grouping factor.
  rng::standard_normal(seed, rng::Purpose::simulation, 1000 + static_cast<std::uint64_t>(factor), 0, z);
  Eigen::MatrixXd omega = Eigen::MatrixXd::Identity(K, K);
  for (Eigen::Index s = 0; s < S; ++s) {
    if (cor_column >= 0)
      for (Eigen::Index i = 1, c = cor_column; i < K; ++i)
        for (Eigen::Index j = 0; j < i; ++j, ++c) omega(i, j) = omega(j, i) = draws(s, c);
    const Eigen::LLT<Eigen::MatrixXd> llt(omega);
    if (llt.info() != Eigen::Success)
      throw std::runtime_error("predict: a draw's correlations are not positive definite");
    const Eigen::MatrixXd L = llt.matrixL();
    const Eigen::VectorXd sd = draws.row(s).segment(sd_column, K).transpose();
    for (Eigen::Index j = 0; j < new_groups; ++j)
      out.row(s).segment(j * K, K) =
          (sd.asDiagonal() * (L * z.row(s).segment(j * K, K).transpose())).transpose();
  }
  return out;
}

bool predict_supports(const std::string& likelihood) {
  bool ok = false;
  PredictFamily::named(likelihood, &ok);
  // ordinal_prediction.hpp, categorical_prediction.hpp
  return ok || likelihood == "ordinal_logit" || likelihood == "ordinal_probit" || likelihood == "categorical_logit";
}

Predictions predict(const FitResult& fit, const PredictRows& rows, int threads) {
  bool ok = false;
  const PredictFamily family = PredictFamily::named(fit.likelihood, &ok);
  if (!ok)
    throw config_error("/model/likelihood",
                       "predict does not support the likelihood '" + fit.likelihood + "' yet");
  const data::RowMatrix<double>& x = rows.x;
  const Eigen::VectorXd* y = rows.y;
  const Eigen::Index n = x.rows(), D = x.cols(), S = fit.draws.rows();
  if (family.kind() == PredictFamily::Kind::binomial_logit && !rows.trials)
    throw std::logic_error("predict: binomial_logit needs the rows' trials");
  const DrawPredictors predictors(fit, family, D);
  const Eigen::VectorXd& sigma = predictors.scale;
  const Eigen::VectorXd& nu = predictors.second;

  Predictions out;
  out.mean.resize(n);
  out.sd.resize(n);
  out.q05.resize(n);
  out.q95.resize(n);
  if (!family.binary()) out.predictive_sd.resize(n);
  if (y) out.lpd.resize(n);
  constexpr Eigen::Index kBlock = 256;
#pragma omp parallel num_threads(std::max(1, threads))
  {
    Eigen::MatrixXd eta(S, kBlock);
    std::vector<double> mu(static_cast<size_t>(S)), lp(static_cast<size_t>(S));
#pragma omp for schedule(static)
    for (Eigen::Index r0 = 0; r0 < n; r0 += kBlock) {
      const Eigen::Index m = std::min(kBlock, n - r0);
      // Linear predictors of every draw for the block: one GEMM.
      predictors.block(fit, rows, r0, m, eta);
      for (Eigen::Index i = 0; i < m; ++i) {
        const Eigen::Index row = r0 + i;
        const double off = rows.offset ? (*rows.offset)[row] : 0.0;
        const double trials = rows.trials ? (*rows.trials)[row] : 0.0;
        double sum = 0, sum2 = 0, var_sum = 0;
        for (Eigen::Index s = 0; s < S; ++s) {
          const double e = eta(s, i) + off, v = family.mean(e, trials, sigma[s], nu[s]);
          mu[static_cast<size_t>(s)] = v;
          sum += v;
          sum2 += v * v;
          if (!family.binary()) var_sum += family.variance(e, trials, sigma[s], nu[s]);
        }
        const double dS = static_cast<double>(S), mean = sum / dS;
        out.mean[row] = mean;
        out.sd[row] = S > 1 ? std::sqrt(std::max(0.0, (sum2 - dS * mean * mean) / (dS - 1))) : 0.0;
        if (!family.binary())  // the mixture over draws: variances with 1/S
          out.predictive_sd[row] = std::sqrt(std::max(0.0, sum2 / dS - mean * mean) + var_sum / dS);
        std::sort(mu.begin(), mu.end());
        out.q05[row] = quantile_sorted(mu, 0.05);
        out.q95[row] = quantile_sorted(mu, 0.95);
        if (y) {
          // log mean_s p(y | theta_s), by log-sum-exp over the draws' log densities.
          double mx = -INFINITY;
          for (Eigen::Index s = 0; s < S; ++s) {
            lp[static_cast<size_t>(s)] = family.log_density((*y)[row], eta(s, i) + off, trials, sigma[s], nu[s]);
            mx = std::max(mx, lp[static_cast<size_t>(s)]);
          }
          double acc = 0;
          for (Eigen::Index s = 0; s < S; ++s) acc += std::exp(lp[static_cast<size_t>(s)] - mx);
          out.lpd[row] = std::isfinite(mx) ? mx + std::log(acc / dS) : mx;  // -inf: y impossible
        }
      }
    }
  }
  return out;
}

}  // namespace bvi::models
