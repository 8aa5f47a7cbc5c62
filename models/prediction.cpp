#include "models/prediction.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/error.hpp"

namespace bvi::models {

namespace {

// log sigmoid(z), stable both ways.
inline double log_sigmoid(double z) {
  return z >= 0 ? -std::log1p(std::exp(-z)) : z - std::log1p(std::exp(z));
}

// The q-quantile of sorted values, linear between order statistics (numpy's default, R type 7).
double quantile_sorted(const std::vector<double>& v, double q) {
  const double h = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

bool predict_supports(const std::string& likelihood) {
  return likelihood == "bernoulli_logit";
}

Predictions predict(const FitResult& fit, const data::RowMatrix<double>& x, const Eigen::VectorXd* y,
                    int threads) {
  if (!predict_supports(fit.likelihood))
    throw config_error("/model/likelihood",
                       "predict does not support the likelihood '" + fit.likelihood + "' yet");
  const Eigen::Index n = x.rows(), D = x.cols(), S = fit.draws.rows();
  // Column positions of alpha and beta.1 ... beta.D in the draws.
  Eigen::Index alpha = -1, beta = -1;
  for (size_t j = 0; j < fit.names.size(); ++j) {
    if (fit.names[j] == "alpha") alpha = static_cast<Eigen::Index>(j);
    if (fit.names[j] == "beta.1" || (D == 1 && fit.names[j] == "beta")) beta = static_cast<Eigen::Index>(j);
  }
  if (beta < 0 || beta + D > fit.draws.cols())
    throw std::logic_error("predict: the draws have no beta columns");
  const Eigen::MatrixXd B = fit.draws.middleCols(beta, D);  // S x D
  Eigen::VectorXd a = alpha >= 0 ? Eigen::VectorXd(fit.draws.col(alpha)) : Eigen::VectorXd::Zero(S);

  Predictions out;
  out.mean.resize(n);
  out.sd.resize(n);
  out.q05.resize(n);
  out.q95.resize(n);
  if (y) out.lpd.resize(n);
  constexpr Eigen::Index kBlock = 256;
#pragma omp parallel num_threads(std::max(1, threads))
  {
    Eigen::MatrixXd eta(S, kBlock);
    std::vector<double> p(static_cast<size_t>(S));
#pragma omp for schedule(static)
    for (Eigen::Index r0 = 0; r0 < n; r0 += kBlock) {
      const Eigen::Index m = std::min(kBlock, n - r0);
      // Logits of every draw for the block: one GEMM.
      eta.leftCols(m).noalias() = B * x.middleRows(r0, m).transpose();
      eta.leftCols(m).colwise() += a;
      for (Eigen::Index i = 0; i < m; ++i) {
        double sum = 0, sum2 = 0;
        for (Eigen::Index s = 0; s < S; ++s) {
          const double z = eta(s, i);
          const double pr = z >= 0 ? 1.0 / (1.0 + std::exp(-z)) : std::exp(z) / (1.0 + std::exp(z));
          p[static_cast<size_t>(s)] = pr;
          sum += pr;
          sum2 += pr * pr;
        }
        const double mean = sum / static_cast<double>(S);
        const Eigen::Index row = r0 + i;
        out.mean[row] = mean;
        out.sd[row] =
            S > 1 ? std::sqrt(std::max(0.0, (sum2 - S * mean * mean) / static_cast<double>(S - 1))) : 0.0;
        std::sort(p.begin(), p.end());
        out.q05[row] = quantile_sorted(p, 0.05);
        out.q95[row] = quantile_sorted(p, 0.95);
        if (y) {
          // log mean_s p(y | theta_s), by log-sum-exp over the draws' log densities
          const double sign = (*y)[row] > 0.5 ? 1.0 : -1.0;
          double mx = -INFINITY;
          for (Eigen::Index s = 0; s < S; ++s) mx = std::max(mx, log_sigmoid(sign * eta(s, i)));
          double acc = 0;
          for (Eigen::Index s = 0; s < S; ++s) acc += std::exp(log_sigmoid(sign * eta(s, i)) - mx);
          out.lpd[row] = mx + std::log(acc / static_cast<double>(S));
        }
      }
    }
  }
  return out;
}

}  // namespace bvi::models
