#pragma once
// The multilevel model and data of the exact method's unit tests (support/multilevel_fixture.hpp):
// a factor "a" with intercept and two slopes, correlated or independent, crossed with a factor "b"
// of varying intercepts; every likelihood; the centred intercept prior or alpha's own.
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "common/logger.hpp"
#include "exact_fixtures.hpp"
#include "inference/exact/exact_vi.hpp"
#include "inference/rng/normal_stream.hpp"
#include "models/expected_log_joint.hpp"
#include "models/log_joint.hpp"
#include "support/multilevel_fixture.hpp"

namespace bvi::test {

const char* const kLikelihoods[] = {"bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log",
                                    "normal",          "negative_binomial_log", "lognormal", "gamma_log", "beta_logit"};

// Model variants: correlated (factor a as the fixture has it) or with every factor independent,
// and alpha's prior on the intercept at the column means or on alpha itself. Factor a has an
// intercept and the data's slopes (two, or one: then its correlated prior is exact).
inline models::Model variant(const MultilevelData<double>& d, const std::string& lik, bool correlated, bool centred) {
  spec::ModelConfig c = logistic_config(true, {0.0}, {2.0});
  c.likelihood = lik;
  c.alpha_prior_centered = centred;
  if (lik == "normal") c.priors["sigma"] = simple_prior("sigma", "half_normal", {{"scale", 2.0}});
  if (lik == "negative_binomial_log") c.priors["phi"] = simple_prior("phi", "gamma", {{"shape", 2.0}, {"rate", 0.5}});
  if (lik == "lognormal") c.priors["sigma"] = simple_prior("sigma", "half_normal", {{"scale", 2.0}});
  if (lik == "gamma_log") c.priors["shape"] = simple_prior("shape", "gamma", {{"shape", 2.0}, {"rate", 0.5}});
  if (lik == "beta_logit") c.priors["phi"] = simple_prior("phi", "gamma", {{"shape", 2.0}, {"rate", 0.2}});
  c.priors["sd_a"] = simple_prior("sd_a", "half_normal", {{"scale", 1.5}});
  c.priors["sd_b"] = simple_prior("sd_b", "half_normal", {{"scale", 1.0}});
  if (correlated) c.priors["cor_a"] = simple_prior("cor_a", "lkj", {{"eta", 2.0}});
  models::ModelShape shape = models::ModelShape::plain(feature_names(static_cast<int>(d.x.cols())));
  std::vector<std::string> effects{"(Intercept)", "s1", "s2"};
  effects.resize(static_cast<std::size_t>(1 + d.groups[0].slopes.cols()));
  shape.groups.push_back({"a", "a", d.groups[0].levels, effects, correlated});
  shape.groups.push_back({"b", "b", d.groups[1].levels, {"(Intercept)"}, true});
  shape.column_means = d.x.colwise().mean().transpose();
  return models::Model::build(c, shape, {true});
}

inline MultilevelData<double> with_slopes(MultilevelData<double> d, int slopes) {
  if (slopes < d.groups[0].slopes.cols()) {
    data::RowMatrix<double> kept = d.groups[0].slopes.leftCols(slopes);
    d.groups[0].slopes = kept;
    d.groups[0].slope_names.resize(static_cast<std::size_t>(slopes));
  }
  return d;
}

struct Setup {
  MultilevelData<double> data;
  models::Model model;
  reduce::SerialCommunicator comm;
  std::unique_ptr<reduce::ChunkReducer> reducer;
  std::unique_ptr<models::ExpectedLogJoint<double>> expected;
  models::DataView<double> view;
  // slopes: factor a's varying slopes, 2 or 1.
  Setup(const std::string& lik, bool correlated, bool centred, Eigen::Index n = 240, int threads = 1, int slopes = 2)
      : data(with_slopes(multilevel_data<double>(n, 3, 5, 3, 13), slopes)),
        model(variant(data, lik, correlated, centred)) {
    for (auto& g : data.groups)
      for (Eigen::Index i = 0; i < g.slopes.size(); ++i) g.slopes.data()[i] *= 0.5;
    if (lik == "poisson_log" || lik == "normal" || lik == "negative_binomial_log") {
      std::mt19937_64 rng(3);
      std::poisson_distribution<int> pois(1.5);
      for (Eigen::Index i = 0; i < data.y.size(); ++i) data.y[i] = lik == "normal" ? data.y[i] + 0.3 : pois(rng);
    }
    if (lik == "lognormal" || lik == "gamma_log") {  // positive: exp of a normal around 0.2
      std::mt19937_64 rng(3);
      std::normal_distribution<double> normal(0.2, 0.5);
      for (Eigen::Index i = 0; i < data.y.size(); ++i) data.y[i] = std::exp(normal(rng));
    }
    if (lik == "beta_logit") {  // in (0, 1): expit of a normal
      std::mt19937_64 rng(3);
      std::normal_distribution<double> normal(0.2, 0.8);
      for (Eigen::Index i = 0; i < data.y.size(); ++i) data.y[i] = 1.0 / (1.0 + std::exp(-normal(rng)));
    }
    reducer = std::make_unique<reduce::ChunkReducer>(reduce::ShardPlan::make(n, 64), comm, threads);
    view = data.view();
    if (lik == "binomial_logit") view.trials = data.trials.data();
    if (lik == "poisson_log" || lik == "negative_binomial_log") view.offset = data.offset.data();
    expected = std::make_unique<models::ExpectedLogJoint<double>>(model, view, *reducer, 5);
  }
};

// E_q log p(theta, y) by Monte Carlo, against which the exact expectations are checked: S draws
// zeta = transform(eps) (eps S x P from the seed's normal stream) through the batched log joint;
// their mean and its standard error.
struct MonteCarloMean {
  double mean = 0, se = 0;
};

template <class Transform>
MonteCarloMean monte_carlo_log_joint(Setup& s, Eigen::Index S, std::uint64_t seed, Transform&& transform) {
  const Eigen::Index P = s.model.dim();
  Eigen::MatrixXd eps(S, P), zeta(S, P);
  rng::standard_normal(seed, rng::Purpose::elbo, 2, 0, eps);
  transform(eps, zeta);
  models::LogJoint<double> lj(s.model, s.view, *s.reducer);
  Eigen::VectorXd lp(S);
  lj.evaluate(zeta, lp, nullptr, models::Scale::unconstrained);
  MonteCarloMean out;
  out.mean = lp.mean();
  out.se = std::sqrt((lp.array() - out.mean).square().sum() / double(S - 1) / double(S));
  return out;
}

// The same for a dense (Cholesky) or meanfield GaussianQ.
inline MonteCarloMean monte_carlo_log_joint(Setup& s, const vi::GaussianQ& q, Eigen::Index S, std::uint64_t seed) {
  return monte_carlo_log_joint(s, S, seed, [&q](const Eigen::MatrixXd& eps, Eigen::MatrixXd& zeta) {
    if (q.dense)
      zeta = (eps * q.chol.transpose()).rowwise() + q.mean.transpose();
    else
      zeta = (eps.array().rowwise() * q.sd.transpose().array()).matrix().rowwise() + q.mean.transpose();
  });
}

// The exact method's optima of one setup under dense fullrank and the sparse family, run to a
// residual of 1e-10 (the sparse family must reach fullrank's).
struct DenseAndSparse {
  vi::ExactResult dense, sparse;
};

inline DenseAndSparse fit_dense_and_sparse(Setup& s) {
  NullLogger log;
  vi::ExactOptions o;
  o.max_iterations = 300;
  o.tol_grad = 1e-10;
  o.dense = true;
  DenseAndSparse out{vi::run_exact(*s.expected, s.expected->initial_mean(), o, log, nullptr, {}), {}};
  o.dense = false;
  o.sparse = true;
  out.sparse = vi::run_exact(*s.expected, s.expected->initial_mean(), o, log, nullptr, {});
  return out;
}

}  // namespace bvi::test
