#pragma once
// The inputs of tests/reference/loo_reference.R rebuilt from its formulas (no RNG): three
// logistic regressions on 40 rows with S draws from a meanfield q each. The fixture
// tests/reference/fixtures/loo_reference.json holds R loo 2.5.1's answers for them and checksums
// of the inputs, which the tests compare first (so a drift in the formulas cannot pass unnoticed).
#include <Eigen/Core>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace loo_reference {

struct ModelDraws {
  Eigen::MatrixXd log_lik;  // S x N
  Eigen::VectorXd log_p, log_g;
};

inline double frac_part(double x) {
  return x - std::floor(x);
}

inline Eigen::MatrixXd x_matrix(int N) {
  Eigen::MatrixXd x(N, 3);
  for (int i = 0; i < N; ++i) {
    const double d = i;
    x(i, 0) = std::sin(1.3 * d + 0.7);
    x(i, 1) = std::cos(0.9 * d + 0.2);
    x(i, 2) = std::sin(0.37 * d * d);
  }
  return x;
}

inline Eigen::VectorXd y_vector(const Eigen::MatrixXd& x) {
  const Eigen::Index N = x.rows();
  Eigen::VectorXd y(N);
  for (Eigen::Index i = 0; i < N; ++i)
    y[i] = x(i, 0) - 0.5 * x(i, 1) + 0.8 * std::cos(3.0 * static_cast<double>(i)) > 0 ? 1.0 : 0.0;
  y[7] = 1 - y[7];  // R's rows 8 and 23
  y[22] = 1 - y[22];
  return y;
}

// cols: 0-based feature columns; mu, sd: q's means and sds.
inline ModelDraws model_draws(const std::vector<int>& cols, const std::vector<double>& mu,
                              const std::vector<double>& sd, int S, int N = 40) {
  const double primes[6] = {2, 3, 5, 7, 11, 13};
  double weyl[6];
  for (int j = 0; j < 6; ++j) weyl[j] = frac_part(std::sqrt(primes[j]));
  const Eigen::MatrixXd x = x_matrix(N);
  const Eigen::VectorXd y = y_vector(x);
  const int P = static_cast<int>(cols.size());
  const double pi = 3.14159265358979323846;
  ModelDraws m;
  m.log_lik.resize(S, N);
  m.log_p.resize(S);
  m.log_g.resize(S);
  for (int s = 0; s < S; ++s) {
    std::vector<double> theta(static_cast<std::size_t>(P));
    double log_g = 0, log_prior = 0;
    for (int j = 0; j < P; ++j) {
      const double u1 = frac_part((s + 0.5) * weyl[2 * j]), u2 = frac_part((s + 0.5) * weyl[2 * j + 1]);
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * pi * u2);
      theta[static_cast<std::size_t>(j)] =
          mu[static_cast<std::size_t>(j)] + sd[static_cast<std::size_t>(j)] * z;
      log_g += -0.5 * z * z - std::log(sd[static_cast<std::size_t>(j)]);
      const double t = theta[static_cast<std::size_t>(j)] / 2.5;
      log_prior += -0.5 * std::log(2 * pi) - std::log(2.5) - 0.5 * t * t;
    }
    log_g -= 0.5 * P * std::log(2 * pi);
    double sum_ll = 0;
    for (int i = 0; i < N; ++i) {
      double eta = 0;
      for (int j = 0; j < P; ++j)
        eta += theta[static_cast<std::size_t>(j)] * x(i, cols[static_cast<std::size_t>(j)]);
      const double ll = y[i] * eta - std::log1p(std::exp(eta));
      m.log_lik(s, i) = ll;
      sum_ll += ll;
    }
    m.log_p[s] = sum_ll + log_prior;
    m.log_g[s] = log_g;
  }
  return m;
}

// The three models of the R script, by name.
inline ModelDraws named_model(const std::string& name, int S = 1000) {
  if (name == "a" || name == "a_posterior") return model_draws({0, 1}, {1.6, -0.9}, {0.45, 0.4}, S);
  if (name == "b") return model_draws({0, 1, 2}, {1.5, -0.8, 0.1}, {0.5, 0.45, 0.4}, S);
  return model_draws({0}, {0.9}, {0.9}, S);
}

inline nlohmann::json fixture() {
  std::ifstream in(std::string(BVI_SOURCE_DIR) + "/tests/reference/fixtures/loo_reference.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// |a - b| <= tol |b|: relative to R's value, whatever its size.
inline bool close_relative(double a, double b, double tol) {
  return std::abs(a - b) <= tol * std::abs(b);
}

}  // namespace loo_reference
