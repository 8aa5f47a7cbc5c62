// The log likelihood's Hessian between crossed factors' effects from the rows' curvature in eta
// (models/crossed_curvature.hpp), against central differences of the log joint's own gradient
// (the likelihood alone) for the likelihoods that have it: ordinal_logit, ordinal_probit and
// student_t, with and without row weights, data in double and float, factor "a" (intercept and
// two slopes) crossed with factor "b" (intercepts). Every slot off the crossed pairs is left as
// it was, and 1 and 2 threads give the same bits.
#include <doctest/doctest.h>

#include <random>

#include "inference/reduce/chunk_reducer.hpp"
#include "inference/sparse/hessian_probes.hpp"
#include "models/crossed_curvature.hpp"
#include "models/log_joint.hpp"
#include "models/sparse_pattern.hpp"
#include "support/crossed_fixture.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_crossed_curvature {

using namespace bvi;
using Eigen::Index;

namespace {

// Draws around 0 on the unconstrained scale, the cutpoints' gaps and the scales near 1.
Eigen::MatrixXd draws(Index S, Index P, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 0.4);
  Eigen::MatrixXd t(S, P);
  for (Index i = 0; i < t.size(); ++i) t.data()[i] = normal(rng);
  return t;
}

template <class T>
struct Case {
  test::MultilevelData<T> data;
  models::Model model;
  Eigen::VectorXd weight;
  models::DataView<T> view;
  std::shared_ptr<const vi::BlockPattern> pattern;
  Case(const std::string& lik, bool weighted, unsigned seed)
      : data(test::crossed_data<T>(lik, seed)), model(test::crossed_model(data, lik)) {
    view = data.view();
    if (weighted) {
      weight.resize(data.y.size());
      for (Index i = 0; i < weight.size(); ++i) weight[i] = 0.25 + double(i % 7) / 4.0;
      view.weight = weight.data();
    }
    reduce::SerialCommunicator comm;
    pattern = models::make_block_pattern(model, view, comm);
  }
  Eigen::VectorXd crossed(const Eigen::MatrixXd& theta, int threads, const Eigen::VectorXd& start) {
    reduce::SerialCommunicator comm;
    reduce::ChunkReducer reducer(reduce::ShardPlan::make(data.x.rows(), 16), comm, threads);
    models::CrossedCurvature<T> cc(model, view, reducer, pattern);
    Eigen::VectorXd v = start;
    cc.add(theta, v);
    return v;
  }
};

// sum_s H_s(i, k) of the likelihood alone by central differences of its gradient in k.
template <class T>
double finite_difference(Case<T>& c, const Eigen::MatrixXd& theta, Index i, Index k) {
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(reduce::ShardPlan::make(c.data.x.rows(), 64), comm, 1);
  models::LogJointOptions lo;
  lo.prior = false;
  models::LogJoint<T> lj(c.model, c.view, reducer, lo);
  const double h = 1e-5;
  Eigen::MatrixXd up = theta, down = theta, gu, gd;
  up.col(k).array() += h;
  down.col(k).array() -= h;
  Eigen::VectorXd lp(theta.rows());
  lj.evaluate(up, lp, &gu);
  lj.evaluate(down, lp, &gd);
  return (gu.col(i) - gd.col(i)).sum() / (2 * h);
}

template <class T>
void check_against_differences(const std::string& lik, bool weighted) {
  CAPTURE(lik);
  CAPTURE(weighted);
  Case<T> c(lik, weighted, 7);
  const vi::BlockPattern& pat = *c.pattern;
  const auto crossed = vi::HessianProbes::crossed_pairs(pat);
  REQUIRE(crossed.size() == 1);
  const Eigen::MatrixXd theta = draws(3, c.model.dim(), 11);
  // Every slot starts at a sentinel; the crossed ones at 0.
  Eigen::VectorXd start = Eigen::VectorXd::Constant(pat.size(), 42.0);
  const auto& pair = pat.pairs()[crossed[0]];
  const auto& fa = pat.factors()[static_cast<std::size_t>(pair.f1)];
  const auto& fb = pat.factors()[static_cast<std::size_t>(pair.f2)];
  for (Index at = 0; at < static_cast<Index>(pair.levels.size()); ++at)
    start.segment(pat.pair_block(crossed[0], at), fa.effects * fb.effects).setZero();
  const Eigen::VectorXd got = c.crossed(theta, 1, start);
  Index checked = 0, changed = 0;
  for (Index s = 0; s < pat.size(); ++s) changed += got[s] != start[s];
  for (Index at = 0; at < static_cast<Index>(pair.levels.size()); ++at) {
    const auto [ga, gb] = pair.levels[static_cast<std::size_t>(at)];
    for (Index e = 0; e < fa.effects; ++e)
      for (Index k = 0; k < fb.effects; ++k) {
        const Index i = fa.offset + ga * fa.effects + e, j = fb.offset + gb * fb.effects + k;
        const double want = finite_difference(c, theta, i, j);
        const double have = got[pat.pair_block(crossed[0], at) + e * fb.effects + k];
        CAPTURE(at);
        CAPTURE(e);
        CHECK(have == doctest::Approx(want).epsilon(1e-6).scale(1.0));
        ++checked;
      }
  }
  CHECK(checked == static_cast<Index>(pair.levels.size()) * fa.effects * fb.effects);
  CHECK(checked == 5 * 4 * 3);  // every level of a shares rows with every level of b here
  CHECK(changed > checked / 2);  // and only they changed (the rest kept the sentinel)
  for (Index s = 0; s < pat.size(); ++s)
    if (start[s] == 42.0) CHECK(got[s] == 42.0);
}

}  // namespace

TEST_CASE("crossed curvature: the Hessian between crossed factors' effects against differences of the gradient") {
  for (const char* lik : {"ordinal_logit", "ordinal_probit", "student_t"})
    for (bool weighted : {false, true}) check_against_differences<double>(lik, weighted);
  check_against_differences<float>("ordinal_logit", true);
}

TEST_CASE("crossed curvature: the same bits for one and two threads") {
  Case<double> c("student_t", true, 3);
  const Eigen::MatrixXd theta = draws(5, c.model.dim(), 2);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(c.pattern->size());
  const Eigen::VectorXd one = c.crossed(theta, 1, zero), two = c.crossed(theta, 2, zero);
  CHECK(one.cwiseAbs().maxCoeff() > 0);
  CHECK(std::memcmp(one.data(), two.data(), sizeof(double) * static_cast<std::size_t>(one.size())) == 0);
}

TEST_CASE("crossed curvature: a likelihood without the rows' curvature in eta is refused") {
  auto d = test::multilevel_data<double>(60, 2, 3, 3, 1);
  const models::Model model = test::multilevel_model(d, "bernoulli_logit", true);
  CHECK_FALSE(models::crossed_curvature_fits(model));
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(reduce::ShardPlan::make(60, 16), comm, 1);
  const auto view = d.view();
  const auto pattern = models::make_block_pattern(model, view, comm);
  CHECK_THROWS_AS(models::CrossedCurvature<double>(model, view, reducer, pattern), std::invalid_argument);
}

}  // namespace test_crossed_curvature
