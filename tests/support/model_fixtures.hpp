#pragma once
// Small models and datasets for tests, built without files.
#include <Eigen/Core>
#include <random>
#include <string>
#include <vector>

#include "models/spec/config.hpp"

namespace bvi::test {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Logistic regression with Normal priors: beta ~ N(beta_loc, beta_scale), alpha ~ N(0, 5).
inline spec::ModelConfig logistic_config(bool intercept, std::vector<double> beta_loc,
                                         std::vector<double> beta_scale) {
  spec::ModelConfig m;
  m.likelihood = "bernoulli_logit";
  m.intercept = intercept;
  spec::PriorConfig beta;
  beta.family = "normal";
  beta.pointer = "/model/priors/beta";
  beta.hypers["loc"] = spec::HyperValue::numbers(std::move(beta_loc), "/model/priors/beta/normal/loc");
  beta.hypers["scale"] = spec::HyperValue::numbers(std::move(beta_scale), "/model/priors/beta/normal/scale");
  m.priors["beta"] = beta;
  if (intercept) {
    spec::PriorConfig alpha;
    alpha.family = "normal";
    alpha.pointer = "/model/priors/alpha";
    alpha.hypers["loc"] = spec::HyperValue::numbers({0.0}, "/model/priors/alpha/normal/loc");
    alpha.hypers["scale"] = spec::HyperValue::numbers({5.0}, "/model/priors/alpha/normal/scale");
    m.priors["alpha"] = alpha;
  }
  return m;
}

inline std::vector<std::string> feature_names(int d) {
  std::vector<std::string> names;
  for (int j = 1; j <= d; ++j) names.push_back("x" + std::to_string(j));
  return names;
}

struct SyntheticData {
  RowMatrix x;
  Eigen::VectorXd y;
};

// Standard normal features, y from a logistic model with coefficients of size ~1.
inline SyntheticData synthetic_logistic(Eigen::Index n, Eigen::Index d, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  SyntheticData data{RowMatrix(n, d), Eigen::VectorXd(n)};
  Eigen::VectorXd beta(d);
  for (auto& b : beta) b = normal(rng);
  for (Eigen::Index i = 0; i < n * d; ++i) data.x.data()[i] = normal(rng);
  std::uniform_real_distribution<double> unif;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double z = data.x.row(i).dot(beta) + 0.3;
    data.y[i] = unif(rng) < 1.0 / (1.0 + std::exp(-z)) ? 1.0 : 0.0;
  }
  return data;
}

}  // namespace bvi::test
