#pragma once
// A multilevel model and its data built without files, for the unit tests of the log joint:
// D standard normal features, a grouping factor "a" with G_a groups and correlated varying
// intercept and two slopes (K = 3), a factor "b" with varying intercepts only, 0/1 responses
// (valid for every likelihood: binomial with one trial per row, poisson counts, normal values).
#include <random>
#include <string>
#include <vector>

#include "models/data/group_data.hpp"
#include "models/data_view.hpp"
#include "models/model.hpp"
#include "support/model_fixtures.hpp"

namespace bvi::test {

template <class T>
struct MultilevelData {
  data::RowMatrix<T> x;
  Eigen::VectorXd y, trials, offset;
  std::vector<data::GroupData<T>> groups;
  std::vector<Eigen::Index> chunk_offsets;  // empty: the plan's rows

  models::DataView<T> view() const {
    models::DataView<T> v{x.data(), y.data(), x.rows(), x.cols(), 0, x.rows()};
    v.groups = groups.data();
    v.n_groups = static_cast<int>(groups.size());
    if (!chunk_offsets.empty()) v.chunk_offsets = chunk_offsets.data();
    return v;
  }
};

inline spec::PriorConfig simple_prior(const std::string& key, const std::string& family,
                                      std::vector<std::pair<std::string, double>> hypers) {
  spec::PriorConfig p;
  p.family = family;
  p.pointer = "/model/priors/" + key;
  for (auto& [name, v] : hypers)
    p.hypers[name] = spec::HyperValue::numbers({v}, p.pointer + "/" + family + "/" + name);
  return p;
}

template <class T>
MultilevelData<T> multilevel_data(Eigen::Index n, Eigen::Index d, Eigen::Index groups_a,
                                  Eigen::Index groups_b, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  MultilevelData<T> m;
  m.x.resize(n, d);
  for (Eigen::Index i = 0; i < n * d; ++i) m.x.data()[i] = static_cast<T>(normal(rng));
  m.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) m.y[i] = double(rng() & 1);
  m.trials = Eigen::VectorXd::Ones(n);
  m.offset = Eigen::VectorXd::Constant(n, 0.1);
  data::GroupData<T> a;
  a.label = a.ident = "a";
  for (Eigen::Index g = 0; g < groups_a; ++g) a.levels.push_back("a" + std::to_string(g));
  a.slope_names = {"s1", "s2"};
  a.slopes.resize(n, 2);
  for (Eigen::Index i = 0; i < n; ++i) {
    a.level.push_back(static_cast<std::int32_t>(rng() % static_cast<unsigned long>(groups_a)));
    a.slopes(i, 0) = static_cast<T>(normal(rng));
    a.slopes(i, 1) = static_cast<T>(normal(rng));
  }
  data::GroupData<T> b;
  b.label = b.ident = "b";
  for (Eigen::Index g = 0; g < groups_b; ++g) b.levels.push_back("b" + std::to_string(g));
  b.slopes.resize(n, 0);
  for (Eigen::Index i = 0; i < n; ++i)
    b.level.push_back(static_cast<std::int32_t>(rng() % static_cast<unsigned long>(groups_b)));
  m.groups = {a, b};
  return m;
}

// The model for multilevel_data: every prior explicit (normal, half_normal, lkj(2)).
template <class T>
models::Model multilevel_model(const MultilevelData<T>& data, const std::string& likelihood, bool fused) {
  spec::ModelConfig c = logistic_config(true, {0.0}, {2.0});
  c.likelihood = likelihood;
  if (likelihood == "normal") c.priors["sigma"] = simple_prior("sigma", "half_normal", {{"scale", 2.0}});
  if (likelihood == "negative_binomial_log")
    c.priors["phi"] = simple_prior("phi", "gamma", {{"shape", 2.0}, {"rate", 0.5}});
  if (likelihood == "lognormal") c.priors["sigma"] = simple_prior("sigma", "half_normal", {{"scale", 2.0}});
  if (likelihood == "gamma_log")
    c.priors["shape"] = simple_prior("shape", "gamma", {{"shape", 2.0}, {"rate", 0.5}});
  if (likelihood == "beta_logit")
    c.priors["phi"] = simple_prior("phi", "gamma", {{"shape", 2.0}, {"rate", 0.2}});
  c.priors["sd_a"] = simple_prior("sd_a", "half_normal", {{"scale", 1.5}});
  c.priors["sd_b"] = simple_prior("sd_b", "half_normal", {{"scale", 1.0}});
  c.priors["cor_a"] = simple_prior("cor_a", "lkj", {{"eta", 2.0}});
  models::ModelShape shape = models::ModelShape::plain(feature_names(static_cast<int>(data.x.cols())));
  shape.groups.push_back({"a", "a", data.groups[0].levels, {"(Intercept)", "s1", "s2"}, true});
  shape.groups.push_back({"b", "b", data.groups[1].levels, {"(Intercept)"}, true});
  return models::Model::build(c, shape, {fused});
}

}  // namespace bvi::test
