// categorical_logit with group effects: each non-reference category k has its own
// r_F.k.l.e, sd_F.k.e (and cor_F.k.i.j). The log joint on the constrained scale against one
// written out here (softmax in long double, normal and half-normal priors by hand, the effects read
// by their parameter names); its gradient against central differences on the unconstrained scale
// (the sd log transform and the cholesky_corr blocks included), every reference category; the same
// bits for 1 and 2 threads and for float data within single-precision rounding.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <random>

#include "inference/reduce/chunk_reducer.hpp"
#include "models/log_joint.hpp"
#include "support/multilevel_fixture.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_categorical_groups {

using namespace bvi;

namespace {

constexpr int kK = 3;

// Factor a: intercept and slope s1 (correlated or not); factor b: intercept. Categories 1 ... 3.
template <class T>
test::MultilevelData<T> categorical_data(Eigen::Index n, unsigned seed) {
  test::MultilevelData<T> d = test::multilevel_data<T>(n, 2, 4, 3, seed);
  data::RowMatrix<T> s1 = d.groups[0].slopes.leftCols(1);
  d.groups[0].slopes = s1;
  d.groups[0].slope_names = {"s1"};
  std::mt19937_64 rng(seed + 1);
  for (Eigen::Index i = 0; i < n; ++i) d.y[i] = 1.0 + static_cast<double>(rng() % kK);
  return d;
}

template <class T>
models::Model categorical_model(const test::MultilevelData<T>& d, int reference, bool correlated) {
  spec::ModelConfig c = test::logistic_config(true, {0.0}, {2.0});
  c.likelihood = "categorical_logit";
  c.categories = kK;
  c.reference_category = reference;
  c.priors["sd_a"] = test::simple_prior("sd_a", "half_normal", {{"scale", 1.5}});
  c.priors["sd_b"] = test::simple_prior("sd_b", "half_normal", {{"scale", 1.0}});
  if (correlated) c.priors["cor_a"] = test::simple_prior("cor_a", "lkj", {{"eta", 2.0}});
  models::ModelShape shape = models::ModelShape::plain(test::feature_names(static_cast<int>(d.x.cols())));
  shape.groups.push_back({"a", "a", d.groups[0].levels, {"(Intercept)", "s1"}, correlated});
  shape.groups.push_back({"b", "b", d.groups[1].levels, {"(Intercept)"}, true});
  shape.response_levels = kK;
  return models::Model::build(c, shape, {true});
}

struct Run {
  Eigen::VectorXd lp;
  Eigen::MatrixXd grad;
};

template <class T>
Run evaluate(const models::Model& model, const test::MultilevelData<T>& d, int threads, const Eigen::MatrixXd& theta,
             models::Scale scale) {
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(reduce::ShardPlan::make(d.x.rows(), 32), comm, threads);
  models::LogJoint<T> lj(model, d.view(), reducer);
  Run r{Eigen::VectorXd(theta.rows()), Eigen::MatrixXd()};
  lj.evaluate(theta, r.lp, &r.grad, scale);
  return r;
}

double normal_lpdf(double x, double sd) { return -0.5 * std::log(2 * M_PI) - std::log(sd) - 0.5 * (x / sd) * (x / sd); }

// log p(y, theta) of the uncorrelated model from the parameters by name: the priors and
// sum_n log softmax_{y_n}(eta_n), eta_{n,ref} = 0 and, for the others,
// eta_nk = alpha.k + x_n . beta.k + r_a.k.[a(n)].1 + s1_n r_a.k.[a(n)].2 + r_b.k.[b(n)].1.
long double reference_log_joint(const test::MultilevelData<double>& d, const models::Model& model,
                                const Eigen::RowVectorXd& theta, int reference) {
  std::map<std::string, double> v;
  const auto names = model.layout().column_names();
  for (std::size_t j = 0; j < names.size(); ++j) v[names[j]] = theta[static_cast<Eigen::Index>(j)];
  const auto at = [&](const std::string& name) {
    const auto it = v.find(name);
    REQUIRE_MESSAGE(it != v.end(), "no parameter " << name);
    return it->second;
  };
  const auto s = [](auto i) { return std::to_string(i); };
  long double lp = 0;
  for (int k = 1; k <= kK; ++k) {
    if (k == reference) continue;
    lp += normal_lpdf(at("alpha." + s(k)), 5.0);
    for (int j = 1; j <= 2; ++j) lp += normal_lpdf(at("beta." + s(k) + "." + s(j)), 2.0);
    for (int e = 1; e <= 2; ++e) {
      const double sd = at("sd_a." + s(k) + "." + s(e));
      lp += std::log(2.0) + normal_lpdf(sd, 1.5);
      for (int l = 1; l <= 4; ++l) lp += normal_lpdf(at("r_a." + s(k) + "." + s(l) + "." + s(e)), sd);
    }
    const double sd_b = at("sd_b." + s(k) + ".1");
    lp += std::log(2.0) + normal_lpdf(sd_b, 1.0);
    for (int l = 1; l <= 3; ++l) lp += normal_lpdf(at("r_b." + s(k) + "." + s(l) + ".1"), sd_b);
  }
  for (Eigen::Index n = 0; n < d.x.rows(); ++n) {
    long double eta[kK], hi = 0;
    const int a = d.groups[0].level[static_cast<std::size_t>(n)] + 1, b = d.groups[1].level[static_cast<std::size_t>(n)] + 1;
    for (int k = 1; k <= kK; ++k) {
      if (k == reference) {
        eta[k - 1] = 0;
        continue;
      }
      const std::string p = s(k) + ".";
      eta[k - 1] = at("alpha." + s(k)) + d.x(n, 0) * at("beta." + p + "1") + d.x(n, 1) * at("beta." + p + "2") +
                   at("r_a." + p + s(a) + ".1") + d.groups[0].slopes(n, 0) * at("r_a." + p + s(a) + ".2") +
                   at("r_b." + p + s(b) + ".1");
      hi = std::max(hi, eta[k - 1]);
    }
    long double den = 0;
    for (long double e : eta) den += std::exp(e - hi);
    lp += eta[static_cast<int>(d.y[n]) - 1] - hi - std::log(den);
  }
  return lp;
}

Eigen::MatrixXd random_theta(Eigen::Index S, Eigen::Index P, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 0.5);
  Eigen::MatrixXd t(S, P);
  for (Eigen::Index i = 0; i < t.size(); ++i) t.data()[i] = normal(rng);
  return t;
}

}  // namespace

TEST_CASE("categorical_logit groups: names and sizes, one set of effects per non-reference category") {
  const auto d = categorical_data<double>(60, 3);
  const models::Model m = categorical_model(d, 2, true);
  // alpha 2, beta 2 x 2, sd_a 2 x 2, cor_a 2 x 1, sd_b 2, r_a 2 x 4 x 2, r_b 2 x 3.
  CHECK(m.dim() == 2 + 4 + 4 + 2 + 2 + 16 + 6);
  const auto names = m.layout().column_names();
  const auto has = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  CHECK(has("sd_a.1.1"));
  CHECK(has("sd_a.3.2"));
  CHECK(has("cor_a.3.2.1"));
  CHECK(has("r_a.1.4.2"));
  CHECK(has("r_b.3.3.1"));
  CHECK_FALSE(has("r_a.2.1.1"));  // the reference category has none
  CHECK(m.group_priors().size() == 4);  // two factors, two categories each
  const auto labels = m.layout().column_labels();
  CHECK(std::find(labels.begin(), labels.end(), "a: sd(mu3_s1)") != labels.end());
  CHECK(std::find(labels.begin(), labels.end(), "b[b2]:mu1_(Intercept)") != labels.end());
}

TEST_CASE("categorical_logit groups: the log joint against the softmax and priors written out") {
  const auto d = categorical_data<double>(150, 7);
  for (int ref = 1; ref <= kK; ++ref) {
    CAPTURE(ref);
    const models::Model model = categorical_model(d, ref, false);
    Eigen::MatrixXd theta = random_theta(3, model.dim(), 11 + static_cast<unsigned>(ref));
    // sds positive on the constrained scale.
    for (const auto& b : model.layout().blocks())
      if (b.name.compare(0, 3, "sd_") == 0) theta.middleCols(b.offset, b.size) = theta.middleCols(b.offset, b.size).array().exp();
    const Run r = evaluate(model, d, 1, theta, models::Scale::constrained);
    for (Eigen::Index s = 0; s < theta.rows(); ++s) {
      const double want = static_cast<double>(reference_log_joint(d, model, theta.row(s), ref));
      CHECK(r.lp[s] == doctest::Approx(want).epsilon(1e-12));
    }
  }
}

TEST_CASE("categorical_logit groups: gradient against central differences, same bits for 1 and 2 threads") {
  const auto d = categorical_data<double>(120, 5);
  const auto df = categorical_data<float>(120, 5);
  for (int correlated = 0; correlated < 2; ++correlated)
    for (int ref : {1, 3}) {
      CAPTURE(correlated);
      CAPTURE(ref);
      const models::Model model = categorical_model(d, ref, correlated == 1);
      const Eigen::Index P = model.dim();
      const Eigen::MatrixXd theta = random_theta(2, P, 9);
      const Run r = evaluate(model, d, 1, theta, models::Scale::unconstrained);
      const double h = 1e-5;
      for (Eigen::Index j = 0; j < P; ++j) {
        Eigen::MatrixXd up = theta, down = theta;
        up.col(j).array() += h;
        down.col(j).array() -= h;
        const Run a = evaluate(model, d, 1, up, models::Scale::unconstrained);
        const Run b = evaluate(model, d, 1, down, models::Scale::unconstrained);
        for (Eigen::Index s = 0; s < 2; ++s) {
          CAPTURE(j);
          CHECK(r.grad(s, j) == doctest::Approx((a.lp[s] - b.lp[s]) / (2 * h)).epsilon(1e-6).scale(1.0));
        }
      }
      const Run two = evaluate(model, d, 2, theta, models::Scale::unconstrained);
      CHECK((two.lp.array() == r.lp.array()).all());
      CHECK((two.grad.array() == r.grad.array()).all());
      const Run f = evaluate(model, df, 2, theta, models::Scale::unconstrained);
      CHECK((f.lp - r.lp).cwiseAbs().maxCoeff() <= 1e-5 * r.lp.cwiseAbs().maxCoeff());
      CHECK((f.grad - r.grad).cwiseAbs().maxCoeff() <= 1e-4 * (1.0 + r.grad.cwiseAbs().maxCoeff()));
    }
}

}  // namespace test_categorical_groups
