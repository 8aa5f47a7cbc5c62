#include "models/replicates.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <vector>

#include "inference/rng/normal_stream.hpp"
#include "inference/rng/uniform_stream.hpp"
#include "models/data/random_variates.hpp"
#include "models/draw_predictors.hpp"

namespace bvi::models {

namespace {

// Terms of the pmf below this fraction of the mode's are left out of the inverse CDF's window.
constexpr double kReplicateTail = 1e-18;

// p(k + 1) / p(k) of a count family, and its mode, for one row and draw.
struct CountPmf {
  PredictFamily::Kind kind;
  double mu = 0, n = 0, odds = 0, phi = 0;

  double ratio_up(double k) const {
    switch (kind) {
      case PredictFamily::Kind::binomial_logit:
        return (n - k) / (k + 1) * odds;  // C(n, k+1) p^(k+1) q^(n-k-1) / (C(n, k) p^k q^(n-k))
      case PredictFamily::Kind::negative_binomial_log:
        return (k + phi) / (k + 1) * (mu / (mu + phi));  // Gamma(k+1+phi) / (Gamma(k+phi) (k+1)) ...
      default:
        return mu / (k + 1);  // Poisson: mu^(k+1) / (k+1)! over mu^k / k!
    }
  }
  double mode() const {
    switch (kind) {
      case PredictFamily::Kind::binomial_logit:
        return std::min(n, std::floor((n + 1) * (odds / (1 + odds))));
      case PredictFamily::Kind::negative_binomial_log:
        return phi > 1 ? std::floor(mu * ((phi - 1) / phi)) : 0.0;
      default:
        return std::floor(mu);
    }
  }
};

double replicate_sigmoid(double z) {
  return z >= 0 ? 1.0 / (1.0 + std::exp(-z)) : std::exp(z) / (1.0 + std::exp(z));
}

}  // namespace

double count_quantile(const PredictFamily& family, double eta, double trials, double scale, double u) {
  CountPmf pmf{family.kind()};
  double upper = INFINITY;  // the largest value the family takes
  if (family.kind() == PredictFamily::Kind::binomial_logit) {
    pmf.n = upper = trials;
    pmf.odds = std::exp(eta);
    if (pmf.odds == 0 || trials == 0) return 0;
    if (!std::isfinite(pmf.odds)) return trials;
    if (trials > 1e9) throw std::domain_error("a binomial row with more than 1e9 trials");
  } else {
    pmf.mu = std::exp(eta);
    pmf.phi = scale;
    if (pmf.mu == 0) return 0;
    if (!(pmf.mu <= 1e9))
      throw std::domain_error("an expected count above 1e9 (exp(eta), eta = " + std::to_string(eta) + ")");
  }
  // Weights relative to the mode's, from the mode down and then up, summed left to right.
  thread_local std::vector<double> below, above;
  below.clear();
  above.clear();
  const double mode = pmf.mode();
  double w = 1;
  for (double k = mode; k > 0; --k) {
    w /= pmf.ratio_up(k - 1);
    if (w < kReplicateTail) break;
    below.push_back(w);
  }
  w = 1;
  for (double k = mode; k < upper; ++k) {
    w *= pmf.ratio_up(k);
    if (w < kReplicateTail) break;
    above.push_back(w);
  }
  double total = 0;
  for (auto it = below.rbegin(); it != below.rend(); ++it) total += *it;
  total += 1;
  for (double a : above) total += a;
  const double target = u * total;
  double cum = 0, k = mode - static_cast<double>(below.size());
  for (auto it = below.rbegin(); it != below.rend(); ++it, ++k)
    if ((cum += *it) >= target) return k;
  if ((cum += 1) >= target) return mode;
  k = mode + 1;
  for (double a : above) {
    if ((cum += a) >= target) return k;
    ++k;
  }
  return k - 1;  // u within rounding of 1: the window's last value
}

double replicate_value(const PredictFamily& family, double eta, double trials, double scale, double u) {
  switch (family.kind()) {
    case PredictFamily::Kind::bernoulli_logit:
    case PredictFamily::Kind::bernoulli_probit:
      return u <= family.mean(eta, trials, scale) ? 1.0 : 0.0;
    case PredictFamily::Kind::normal:
      return eta + scale * u;
    case PredictFamily::Kind::lognormal:
      return std::exp(eta + scale * u);
    case PredictFamily::Kind::gamma_log:
    case PredictFamily::Kind::beta_logit:
    case PredictFamily::Kind::student_t:
      throw std::logic_error(
          "replicate_value: gamma, beta and Student t replicates take several values (replicate_rows)");
    default:
      return count_quantile(family, eta, trials, scale, u);
  }
}

Eigen::MatrixXd replicate_rows(const FitResult& full_fit, const PredictRows& full_rows,
                               const std::vector<Eigen::Index>& record, Eigen::Index R, std::uint64_t seed,
                               int threads) {
  bool ok = false;
  const PredictFamily family = PredictFamily::named(full_fit.likelihood, &ok);
  if (!ok || R > full_fit.draws.rows()) throw std::logic_error("replicate_rows: no such family or draws");
  // The first R draws, with the new groups' effects drawn for them.
  FitResult fit;
  fit.names = full_fit.names;
  fit.likelihood = full_fit.likelihood;
  fit.draws = full_fit.draws.topRows(R);
  PredictRows rows = full_rows;
  for (PredictGroupEffects& g : rows.groups) g.new_effects = Eigen::MatrixXd(g.new_effects.topRows(R));
  const Eigen::Index n = rows.x.rows();
  const DrawPredictors predictors(fit, family, rows.x.cols());
  const bool normal = family.kind() == PredictFamily::Kind::normal || family.kind() == PredictFamily::Kind::lognormal;
  const bool gamma = family.kind() == PredictFamily::Kind::gamma_log;
  const bool beta = family.kind() == PredictFamily::Kind::beta_logit;
  const bool student = family.kind() == PredictFamily::Kind::student_t;
  Eigen::MatrixXd out(R, n);
  std::exception_ptr error;
  constexpr Eigen::Index kBlock = 256;
#pragma omp parallel num_threads(std::max(1, threads))
  {
    Eigen::MatrixXd eta(R, kBlock);
    Eigen::Matrix<double, 1, 1> u;
#pragma omp for schedule(static)
    for (Eigen::Index r0 = 0; r0 < n; r0 += kBlock) {
      try {
        const Eigen::Index m = std::min(kBlock, n - r0);
        predictors.block(fit, rows, r0, m, eta);
        for (Eigen::Index i = 0; i < m; ++i) {
          const Eigen::Index row = r0 + i;
          const double off = rows.offset ? (*rows.offset)[row] : 0.0;
          const double trials = rows.trials ? (*rows.trials)[row] : 0.0;
          const auto key = static_cast<std::uint64_t>(record[static_cast<std::size_t>(row)]);
          for (Eigen::Index r = 0; r < R; ++r) {
            const auto step = static_cast<std::uint64_t>(r);
            const double e = eta(r, i) + off, scale = predictors.scale[r];
            if (gamma || beta || student) {
              data::RowUniforms uniforms(seed, step, key, rng::Purpose::replicates, 1);
              if (student)  // location eta, scale sigma, nu = the second parameter
                out(r, row) = e + scale * data::student_t_variate(predictors.second[r], uniforms);
              else if (gamma)  // mean exp(eta), shape `scale`: exp(eta) / shape G_shape
                out(r, row) = std::exp(e - std::log(scale) + data::log_gamma_variate(scale, uniforms));
              else  // mean mu = expit(eta), precision phi: Beta(mu phi, (1 - mu) phi)
                out(r, row) = data::beta_variate(scale * replicate_sigmoid(e), scale * replicate_sigmoid(-e), uniforms);
              continue;
            }
            if (normal)
              rng::standard_normal(seed, rng::Purpose::replicates, step, 0, key, u);
            else
              rng::standard_uniform(seed, rng::Purpose::replicates, step, 0, key, u);
            out(r, row) = replicate_value(family, e, trials, scale, u(0, 0));
          }
        }
      } catch (...) {
#pragma omp critical(replicate_rows_error)
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
  return out;
}

}  // namespace bvi::models
