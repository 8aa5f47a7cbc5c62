#pragma once
// Data and a model with two crossed grouping factors for the likelihoods with a curvature in eta
// (models/crossed_curvature.hpp): multilevel_data's rows (240 by default), factor "a" (5 groups, correlated
// intercept and two slopes, the slopes halved) crossed with "b" (4 groups, intercepts), responses
// 1..4 for the ordinal likelihoods and real ones for student_t.
#include <random>
#include <string>

#include "support/multilevel_fixture.hpp"

namespace bvi::test {

template <class T>
MultilevelData<T> crossed_data(const std::string& lik, unsigned seed, Eigen::Index rows = 240) {
  auto d = multilevel_data<T>(rows, 2, 5, 4, seed);
  std::mt19937_64 rng(seed + 1);
  std::normal_distribution<double> normal;
  for (Eigen::Index i = 0; i < d.y.size(); ++i)
    d.y[i] = lik == "student_t" ? 0.3 + 1.5 * normal(rng) : double(1 + rng() % 4);
  for (auto& g : d.groups)
    for (Eigen::Index i = 0; i < g.slopes.size(); ++i) g.slopes.data()[i] = static_cast<T>(0.5 * g.slopes.data()[i]);
  return d;
}

template <class T>
models::Model crossed_model(const MultilevelData<T>& d, const std::string& lik) {
  const bool ordinal = lik != "student_t";
  spec::ModelConfig c = logistic_config(!ordinal, {0.0}, {2.0});
  c.likelihood = lik;
  if (ordinal) {
    c.priors["cutpoints"] = simple_prior("cutpoints", "normal", {{"loc", 0.0}, {"scale", 3.0}});
  } else {
    c.priors["sigma"] = simple_prior("sigma", "half_normal", {{"scale", 2.0}});
    c.priors["nu"] = simple_prior("nu", "gamma", {{"shape", 2.0}, {"rate", 0.1}});
  }
  c.priors["sd_a"] = simple_prior("sd_a", "half_normal", {{"scale", 1.5}});
  c.priors["sd_b"] = simple_prior("sd_b", "half_normal", {{"scale", 1.0}});
  c.priors["cor_a"] = simple_prior("cor_a", "lkj", {{"eta", 2.0}});
  models::ModelShape shape = models::ModelShape::plain(feature_names(static_cast<int>(d.x.cols())));
  shape.groups.push_back({"a", "a", d.groups[0].levels, {"(Intercept)", "s1", "s2"}, true});
  shape.groups.push_back({"b", "b", d.groups[1].levels, {"(Intercept)"}, true});
  if (ordinal) shape.response_levels = 4;
  return models::Model::build(c, shape, {true});
}

}  // namespace bvi::test
