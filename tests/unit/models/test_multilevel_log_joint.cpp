// The log joint of a multilevel model (two grouping factors, one with correlated intercept and
// slopes): the fused likelihoods with their extra group term against the composed path, for
// every likelihood and both precisions; its gradient against central differences of its own
// value on the unconstrained scale (the sd log transform and the cholesky_corr block included);
// the same bits for 1 and 2 threads; chunks that lost rows (data.missing "drop") read from their
// offsets.
#include <doctest/doctest.h>

#include <random>

#include "inference/reduce/chunk_reducer.hpp"
#include "models/log_joint.hpp"
#include "support/multilevel_fixture.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_multilevel_log_joint {

using namespace bvi;

namespace {

const char* const kLikelihoods[] = {"bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log",
                                    "normal"};

template <class T>
struct Run {
  Eigen::VectorXd lp;
  Eigen::MatrixXd grad;
};

template <class T>
Run<T> evaluate(const test::MultilevelData<T>& d, const std::string& likelihood, bool fused, int threads,
                const Eigen::MatrixXd& theta, Eigen::Index block_rows = 64, Eigen::Index file_rows = 0) {
  const models::Model model = test::multilevel_model(d, likelihood, fused);
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(reduce::ShardPlan::make(file_rows > 0 ? file_rows : d.x.rows(), block_rows),
                               comm, threads);
  models::DataView<T> view = d.view();
  if (likelihood == "binomial_logit") view.trials = d.trials.data();
  if (likelihood == "poisson_log") view.offset = d.offset.data();
  models::LogJoint<T> lj(model, view, reducer);
  Run<T> r{Eigen::VectorXd(theta.rows()), Eigen::MatrixXd()};
  lj.evaluate(theta, r.lp, &r.grad);
  return r;
}

Eigen::MatrixXd random_theta(Eigen::Index S, Eigen::Index P, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 0.4);
  Eigen::MatrixXd t(S, P);
  for (Eigen::Index i = 0; i < t.size(); ++i) t.data()[i] = normal(rng);
  return t;
}

}  // namespace

TEST_CASE("multilevel log joint: fused equals composed for every likelihood") {
  const auto dd = test::multilevel_data<double>(300, 4, 5, 3, 11);
  const auto df = test::multilevel_data<float>(300, 4, 5, 3, 11);
  for (const char* lik : kLikelihoods) {
    INFO(lik);
    const Eigen::Index P = test::multilevel_model(dd, lik, true).dim();
    const Eigen::MatrixXd theta = random_theta(9, P, 3);
    const auto a = evaluate(dd, lik, true, 1, theta), b = evaluate(dd, lik, false, 1, theta);
    CHECK((a.lp - b.lp).cwiseAbs().maxCoeff() <= 1e-10 * b.lp.cwiseAbs().maxCoeff());
    CHECK((a.grad - b.grad).cwiseAbs().maxCoeff() <= 1e-10 * (1.0 + b.grad.cwiseAbs().maxCoeff()));
    const auto af = evaluate(df, lik, true, 1, theta), bf = evaluate(df, lik, false, 1, theta);
    CHECK((af.lp - bf.lp).cwiseAbs().maxCoeff() <= 1e-5 * bf.lp.cwiseAbs().maxCoeff());
    CHECK((af.grad - bf.grad).cwiseAbs().maxCoeff() <= 1e-4 * (1.0 + bf.grad.cwiseAbs().maxCoeff()));
  }
}

TEST_CASE("multilevel log joint: gradient against central differences, same bits for any thread count") {
  const auto d = test::multilevel_data<double>(200, 3, 4, 3, 5);
  for (const char* lik : {"bernoulli_logit", "normal"}) {
    INFO(lik);
    const Eigen::Index P = test::multilevel_model(d, lik, true).dim();
    const Eigen::MatrixXd theta = random_theta(2, P, 9);
    const auto r = evaluate(d, lik, true, 1, theta);
    for (Eigen::Index j = 0; j < P; ++j) {
      Eigen::MatrixXd up = theta, dn = theta;
      up.col(j).array() += 1e-6;
      dn.col(j).array() -= 1e-6;
      const Eigen::VectorXd fd = (evaluate(d, lik, true, 1, up).lp - evaluate(d, lik, true, 1, dn).lp) / 2e-6;
      for (Eigen::Index s = 0; s < 2; ++s)
        CHECK_MESSAGE(std::abs(r.grad(s, j) - fd[s]) <= 1e-5 * std::max(1.0, std::abs(fd[s])),
                      "column " << j << ": " << r.grad(s, j) << " vs " << fd[s]);
    }
    const auto two = evaluate(d, lik, true, 2, theta, 16);
    const auto one = evaluate(d, lik, true, 1, theta, 16);
    CHECK((one.lp.array() == two.lp.array()).all());
    CHECK((one.grad.array() == two.grad.array()).all());
  }
}

TEST_CASE("multilevel log joint: chunks that lost rows are read from their offsets") {
  // 200 rows held of 260 file records in chunks of 64 + 64 + 64 + 64 + 4: the value must be the
  // sum over the rows held, as if they were a file of their own.
  const auto d = test::multilevel_data<double>(200, 3, 4, 3, 5);
  auto dropped = d;
  dropped.chunk_offsets = {0, 50, 100, 150, 198, 200};
  const Eigen::Index P = test::multilevel_model(d, "normal", true).dim();
  const Eigen::MatrixXd theta = random_theta(3, P, 2);
  const auto whole = evaluate(d, "normal", true, 1, theta, 64);
  const auto cut = evaluate(dropped, "normal", true, 2, theta, 64, 260);
  CHECK((whole.lp - cut.lp).cwiseAbs().maxCoeff() <= 1e-9 * whole.lp.cwiseAbs().maxCoeff());
  CHECK((whole.grad - cut.grad).cwiseAbs().maxCoeff() <= 1e-9 * (1 + whole.grad.cwiseAbs().maxCoeff()));
}

}  // namespace test_multilevel_log_joint
