// The sparse family (a precision on the model's BlockPattern) against dense fullrank, which the
// other tests check against central differences and Monte Carlo: at the same q (Sigma = Lambda^-1,
// dense), the expected log joint and its gradient in the mean agree, and the sparse gradient
// dE/dSigma is dense fullrank's on the pattern while fullrank's is zero off it, for every
// likelihood, on crossed factors (factor a's levels share rows with factor b's). The optimizer
// then reaches fullrank's optimum; the family's draws, sds and entropy match its Gaussian; the
// pass gives the same bits for 1, 2 and 3 threads.
#include <doctest/doctest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <random>

#include "inference/families/sparse_precision.hpp"
#include "models/sparse_pattern.hpp"
#include "multilevel_setup.hpp"
#include "sparse_q.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_sparse_family {

using namespace bvi;
using Eigen::Index;
using test::kLikelihoods;
using test::Setup;

using test::both_q;
using test::on_pattern;
using test::pattern_of;
using test::random_precision;

TEST_CASE("sparse family: expected log joint and gradient equal dense fullrank's at the same q") {
  for (const char* lik : kLikelihoods)
    for (bool centred : {false, true}) {
      INFO(lik << (centred ? " centred intercept prior" : ""));
      Setup s(lik, false, centred);
      const auto pat = pattern_of(s);
      REQUIRE(!pat->pairs().empty());
      const Index P = s.model.dim();
      std::mt19937_64 rng(31);
      std::normal_distribution<double> normal;
      Eigen::VectorXd mean(P);
      for (auto& v : mean) v = 0.3 * normal(rng);
      vi::GaussianQ qs, qd;
      both_q(pat, random_precision(*pat, 33, 0.2), mean, qs, qd);
      vi::ExpectationGradient gs, gd;
      const double es = s.expected->evaluate(qs, &gs), ed = s.expected->evaluate(qd, &gd);
      CHECK(es == doctest::Approx(ed).epsilon(1e-11));
      CHECK(qs.entropy() == doctest::Approx(qd.entropy()).epsilon(1e-11));
      const double gscale = gd.d_mean.cwiseAbs().maxCoeff();
      CHECK((gs.d_mean - gd.d_mean).cwiseAbs().maxCoeff() <= 1e-10 * gscale);
      test::check_sparse_cov_gradient(*pat, gs, gd);
    }
}

TEST_CASE("sparse family: the exact optimizer reaches dense fullrank's optimum") {
  for (const char* lik : {"bernoulli_logit", "poisson_log", "normal"}) {
    INFO(lik);
    Setup s(lik, false, true);
    const test::DenseAndSparse fits = test::fit_dense_and_sparse(s);
    const vi::ExactResult &dense = fits.dense, &sparse = fits.sparse;
    REQUIRE(dense.run.converged);
    REQUIRE(sparse.run.converged);
    CHECK(sparse.run.q->name() == "sparse");
    const Eigen::VectorXd sd = dense.run.q->marginal_sd();
    const Eigen::VectorXd mean_gap = (sparse.run.q->mean() - dense.run.q->mean()).cwiseQuotient(sd);
    const Eigen::VectorXd sd_gap = (sparse.run.q->marginal_sd() - sd).cwiseQuotient(sd);
    INFO("mean gap " << mean_gap.cwiseAbs().maxCoeff() << " sds, sd gap " << sd_gap.cwiseAbs().maxCoeff());
    CHECK(mean_gap.cwiseAbs().maxCoeff() <= 1e-6);
    CHECK(sd_gap.cwiseAbs().maxCoeff() <= 1e-6);
    CHECK(sparse.elbo == doctest::Approx(dense.elbo).epsilon(1e-9));
    // The whole covariance, not only on the pattern.
    const Eigen::MatrixXd Cs = sparse.run.q->covariance(), Cd = dense.run.q->covariance();
    const Eigen::MatrixXd scaled = (Cs - Cd).array() / (sd * sd.transpose()).array();
    CHECK(scaled.cwiseAbs().maxCoeff() <= 1e-5);
  }
}

TEST_CASE("sparse family: draws, marginal sds and entropy are those of its Gaussian") {
  Setup s("bernoulli_logit", false, true);
  const auto pat = pattern_of(s);
  const Index P = s.model.dim();
  const Eigen::MatrixXd Lambda = random_precision(*pat, 41, 0.3);
  const Eigen::MatrixXd Sigma = Lambda.llt().solve(Eigen::MatrixXd::Identity(P, P));
  vi::SparsePrecision f(pat);
  f.params().head(P) = Eigen::VectorXd::LinSpaced(P, -1.0, 1.0);
  f.precision() = on_pattern(*pat, Lambda);
  CHECK((f.covariance() - Sigma).cwiseAbs().maxCoeff() <= 1e-12);
  CHECK((f.marginal_sd() - Sigma.diagonal().cwiseSqrt()).cwiseAbs().maxCoeff() <= 1e-12);
  const double log_det = 2.0 * Eigen::LLT<Eigen::MatrixXd>(Sigma).matrixLLT().diagonal().array().log().sum();
  CHECK(f.log_det_scale() == doctest::Approx(0.5 * log_det).epsilon(1e-12));
  // zeta = mu + C eps with C C' = Sigma: one draw per unit vector gives C.
  const Eigen::MatrixXd eps = Eigen::MatrixXd::Identity(P, P);
  Eigen::MatrixXd zeta(P, P);
  f.transform(eps, zeta);
  const Eigen::MatrixXd C = (zeta.rowwise() - f.mean().transpose()).transpose();
  CHECK((C * C.transpose() - Sigma).cwiseAbs().maxCoeff() <= 1e-12);
  // The round trip through the exact method's Gaussian.
  const vi::GaussianQ q = vi::to_gaussian(f);
  CHECK(q.sparse());
  CHECK(q.entropy() == doctest::Approx(f.entropy()).epsilon(1e-13));
  vi::SparsePrecision g(pat);
  vi::from_gaussian(q, g);
  CHECK(g.params() == f.params());
}

TEST_CASE("sparse family: same bits for 1, 2, 3 threads") {
  Setup one("normal", false, true, 3000, 1);
  const auto pat = pattern_of(one);
  const Index P = one.model.dim();
  vi::GaussianQ q, unused;
  both_q(pat, random_precision(*pat, 43, 0.1), Eigen::VectorXd::Constant(P, 0.05), q, unused);
  vi::ExpectationGradient g1, g;
  const double e1 = one.expected->evaluate(q, &g1);
  for (int threads : {2, 3}) {
    Setup many("normal", false, true, 3000, threads);
    CHECK(many.expected->evaluate(q, &g) == e1);
    CHECK(g.d_mean == g1.d_mean);
    CHECK(g.d_sparse == g1.d_sparse);
  }
}

TEST_CASE("sparse family: the state a checkpoint keeps") {
  // [passes, step, |direction|, direction (P + values), |scale_ref|, scale_ref (P), Anderson's
  // [n, k, ...] in P + values coordinates].
  CHECK(vi::exact_state_fits({}, 5, "sparse", 40));
  CHECK(vi::exact_state_fits({3, 1, 0, 0, 0, 0}, 5, "sparse", 40));
  std::vector<double> state{3, 0.5, 45};
  state.resize(3 + 45, 0.1);
  state.push_back(5);
  state.resize(state.size() + 5, 1.0);
  state.push_back(45);
  state.push_back(1);
  state.resize(state.size() + 4 * 45, 0.2);
  CHECK(vi::exact_state_fits(state, 5, "sparse", 40));
  CHECK_FALSE(vi::exact_state_fits(state, 5, "sparse", 41));
  CHECK_FALSE(vi::exact_state_fits({3, 1, 0, 0, 0}, 5, "sparse", 40));
}

}  // namespace test_sparse_family
