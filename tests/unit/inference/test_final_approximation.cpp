// The final report's output draws: drawn a batch at a time into the columns a caller keeps, they
// are the draws of one request of them all (log p, log q and every kept value; to the bit where
// q's transform is row by row), whichever columns are kept, and redraws keep their place in the
// stream across batch boundaries.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "inference/elbo.hpp"
#include "inference/families/fullrank.hpp"
#include "inference/families/meanfield.hpp"
#include "inference/final_approximation.hpp"

namespace test_final_approximation {

using namespace bvi;

namespace {

// log p = -|theta|^2 / 2 - theta_0 (a shifted standard normal), -inf where theta_0 > cut: about
// 7 % of q's draws at cut = 1.5 need redrawing, some of them more than once.
class CutTarget final : public vi::LogDensity {
 public:
  CutTarget(Eigen::Index dim, double cut) : dim_(dim), cut_(cut) {}
  vi::Index dim() const override { return dim_; }
  void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                   Eigen::MatrixXd* grad) override {
    for (Eigen::Index s = 0; s < theta.rows(); ++s) {
      lp[s] = theta(s, 0) > cut_ ? -std::numeric_limits<double>::infinity()
                                 : -0.5 * theta.row(s).squaredNorm() - theta(s, 0);
    }
    if (grad) *grad = -theta;
  }

 private:
  Eigen::Index dim_;
  double cut_;
};

vi::MeanField meanfield(Eigen::Index dim) {
  vi::MeanField q(dim);
  for (Eigen::Index j = 0; j < dim; ++j) {
    q.params()[j] = 0.1 * static_cast<double>(j) - 0.3;
    q.params()[dim + j] = std::log(0.8 + 0.05 * static_cast<double>(j));
  }
  return q;
}

}  // namespace

TEST_CASE("output draws kept partly or not at all are the draws of one request, to the bit") {
  CutTarget target(7, 1.5);
  const vi::MeanField q = meanfield(7);
  // One request of all 1000 draws, as the estimator makes it (the reference: no batches).
  vi::ElboEstimator one(target, 11);
  one.elbo(q, 1000, rng::Purpose::output, 0);
  const Eigen::MatrixXd zeta = one.last_zeta();
  const Eigen::VectorXd log_p = one.last_log_p();
  Eigen::VectorXd log_q(1000);
  q.log_density_of_draws(one.last_eps(), log_q);
  REQUIRE((zeta.col(0).array() > 1.5).count() == 0);  // every draw past the cut was redrawn

  for (const vi::KeptColumns kept :
       {vi::KeptColumns::all(), vi::KeptColumns::none(), vi::KeptColumns{2, 3}, vi::KeptColumns{6, 1}}) {
    CAPTURE(kept.first);
    CAPTURE(kept.count);
    const vi::FinalReport r = vi::report_final_exact(target, q, 11, -1.0, 0.0, 4000, 1000, kept);
    CHECK(r.draws.log_p == log_p);
    CHECK(r.draws.log_q == log_q);
    const Eigen::Index first = kept.count < 0 ? 0 : kept.first, count = kept.count < 0 ? 7 : kept.count;
    CHECK(r.draws.zeta_first == first);
    REQUIRE(r.draws.zeta.rows() == 1000);
    REQUIRE(r.draws.zeta.cols() == count);
    CHECK(r.draws.zeta == zeta.middleCols(first, count));
    CHECK(r.pareto_draws == 1000);
    CHECK(r.pareto.k == diagnostics::pareto_k_hat(log_p - log_q).k);
  }
}

TEST_CASE("output draws: a fullrank q, batches that do not divide the draws, and other purposes") {
  CutTarget target(5, 1.0);
  vi::FullRank q(5);
  q.params().head(5) << 0.2, -0.1, 0.0, 0.4, -0.3;
  Eigen::MatrixXd L = Eigen::MatrixXd::Identity(5, 5) * 0.7;
  L(3, 1) = 0.2;
  L(4, 0) = -0.3;
  q.set_cholesky(L);
  for (const Eigen::Index n : {1, 255, 256, 257, 700}) {
    CAPTURE(n);
    vi::ElboEstimator one(target, 3);
    one.elbo(q, n, rng::Purpose::output, 0);
    const vi::FinalReport all = vi::report_final(target, q, 3, 500, n);
    const vi::FinalReport some = vi::report_final(target, q, 3, 500, n, vi::KeptColumns{1, 2});
    // zeta = mu + eps L^T is a GEMM, whose kernels round a row's sum by where the row falls in
    // the batch: to the last bits of one request's, and the same whichever columns are kept.
    CHECK((all.draws.log_p - one.last_log_p()).cwiseAbs().maxCoeff() < 1e-12);
    CHECK(some.draws.log_p == all.draws.log_p);
    CHECK(some.draws.log_q == all.draws.log_q);
    CHECK(some.draws.zeta == all.draws.zeta.middleCols(1, 2));
    // The ELBO's draws are their own stream, untouched by how the output draws are kept.
    CHECK(some.elbo.value == all.elbo.value);
    CHECK(some.elbo_draws == all.elbo_draws);
  }
}

TEST_CASE("output draws: the redraw limit is the whole request's, not one batch's") {
  // q puts 62 % of its draws past the cut, and as many of their redraws: about 1.6 redraws per
  // draw in all, over the limit (as many as draws requested) in one request and in batches alike.
  CutTarget target(3, -0.55);
  const vi::MeanField q = meanfield(3);
  vi::ElboEstimator one(target, 1);
  CHECK_THROWS_AS(one.elbo(q, 600, rng::Purpose::output, 0), Error);
  CHECK_THROWS_AS(vi::report_final_exact(target, q, 1, -1.0, 0.0, 4000, 600, vi::KeptColumns::none()), Error);
  CHECK_THROWS_AS(vi::report_final_exact(target, q, 1, -1.0, 0.0, 4000, 600), Error);
}

TEST_CASE("output draws: kept columns out of range are refused") {
  CutTarget target(3, 10.0);
  const vi::MeanField q = meanfield(3);
  CHECK_THROWS_AS(vi::report_final_exact(target, q, 1, -1.0, 0.0, 4000, 100, vi::KeptColumns{2, 2}),
                  std::invalid_argument);
  CHECK_THROWS_AS(vi::report_final_exact(target, q, 1, -1.0, 0.0, 4000, 100, vi::KeptColumns{-1, 1}),
                  std::invalid_argument);
}

}  // namespace test_final_approximation
