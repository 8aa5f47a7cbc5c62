// The sparse precision's pattern and factorization against dense linear algebra: the pattern's
// slots, log det, solves, draws Sigma^{1/2} e and the selected inverse (every entry of Sigma on the
// pattern), on a model with two crossed factors (the level pairs that share rows) and globals.
#include <doctest/doctest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <limits>
#include <random>
#include <stdexcept>

#include "inference/sparse/sparse_factor.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_sparse_factor {

using namespace bvi;
using vi::BlockPattern;
using Eigen::Index;

namespace {

// 3 globals at columns 0, 1 and 11; factor 0: 4 groups x 2 effects at columns 2-9; factor 1:
// 3 groups x 1 effect at 12-14 with column 10 a global between them; level pairs that share rows.
std::shared_ptr<const BlockPattern> crossed_pattern() {
  std::vector<BlockPattern::Factor> factors{{2, 4, 2}, {12, 3, 1}};
  BlockPattern::Pair pair;
  pair.f1 = 0;
  pair.f2 = 1;
  pair.levels = {{0, 0}, {1, 2}, {3, 1}, {0, 2}, {1, 2}};  // a duplicate, out of order
  return std::make_shared<const BlockPattern>(15, factors, std::vector<BlockPattern::Pair>{pair});
}

// A symmetric positive definite matrix that is zero off the pattern.
Eigen::MatrixXd random_spd_on(const BlockPattern& p, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Index P = p.dim();
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(P, P);
  for (Index i = 0; i < P; ++i)
    for (Index k = 0; k < i; ++k)
      if (p.contains(i, k)) A(i, k) = A(k, i) = u(rng);
  for (Index i = 0; i < P; ++i) A(i, i) = A.row(i).cwiseAbs().sum() + 0.5 + 0.5 * u(rng);
  return A;
}

Eigen::VectorXd values_of(const BlockPattern& p, const Eigen::MatrixXd& A) {
  Eigen::VectorXd v = Eigen::VectorXd::Zero(p.size());
  for (Index i = 0; i < p.dim(); ++i)
    for (Index k = 0; k < p.dim(); ++k) {
      const Index s = p.slot(i, k);
      if (s >= 0) v[s] = A(i, k);
    }
  return v;
}

// Globals first, then factor 0 (g1 groups x k1 effects) and factor 1 (g2 x k2), a random half of
// their level pairs sharing rows: crossed fill that AMD gathers into a dense tail.
std::shared_ptr<const BlockPattern> half_crossed_pattern(Index globals, std::int32_t g1, Index k1, std::int32_t g2,
                                                         Index k2, unsigned seed) {
  const Index start2 = globals + g1 * k1;
  std::vector<BlockPattern::Factor> factors{{globals, g1, k1}, {start2, g2, k2}};
  BlockPattern::Pair pair;
  pair.f1 = 0;
  pair.f2 = 1;
  std::mt19937_64 rng(seed);
  for (std::int32_t a = 0; a < g1; ++a)
    for (std::int32_t b = 0; b < g2; ++b)
      if (rng() % 2 == 0) pair.levels.emplace_back(a, b);
  return std::make_shared<const BlockPattern>(start2 + g2 * k2, factors, std::vector<BlockPattern::Pair>{pair});
}

// The largest error of the factor's selected inverse against Sigma, over the pattern.
double worst_inverse_error(const vi::SparseFactor& f, const BlockPattern& p, const Eigen::MatrixXd& Sigma) {
  Eigen::VectorXd sigma;
  f.inverse_on_pattern(sigma);
  double worst = 0.0;
  for (Index i = 0; i < p.dim(); ++i)
    for (Index k = 0; k < p.dim(); ++k)
      if (p.contains(i, k)) worst = std::max(worst, std::abs(sigma[p.slot(i, k)] - Sigma(i, k)));
  return worst;
}

}  // namespace

TEST_CASE("block pattern: the slots of globals, groups, their cross terms and crossed level pairs") {
  const auto p = crossed_pattern();
  CHECK(p->n_global() == 4);
  CHECK(p->pairs()[0].levels.size() == 4);  // sorted, the duplicate dropped
  // Globals with each other, both orders, distinct slots of a block stored whole.
  CHECK(p->slot(0, 11) >= 0);
  CHECK(p->slot(0, 11) != p->slot(11, 0));
  // An effect with a global: one slot for both orders.
  CHECK(p->slot(3, 10) == p->slot(10, 3));
  // Effects of one group; not of two groups of one factor.
  CHECK(p->contains(2, 3));
  CHECK_FALSE(p->contains(3, 4));
  // Crossed: group 1 of factor 0 (columns 4, 5) shares rows with level 2 of factor 1 (column 14).
  CHECK(p->contains(5, 14));
  CHECK(p->slot(14, 5) == p->slot(5, 14));
  CHECK_FALSE(p->contains(5, 12));
  // Every slot is named by exactly one lower entry (or its mirror in a whole block).
  std::vector<int> seen(static_cast<std::size_t>(p->size()), 0);
  for (const auto& e : p->lower_entries()) {
    CHECK(e.row >= e.col);
    CHECK(p->slot(e.row, e.col) == e.slot);
    ++seen[static_cast<std::size_t>(e.slot)];
    const Index up = p->slot(e.col, e.row);
    if (up != e.slot) ++seen[static_cast<std::size_t>(up)];
  }
  for (int s : seen) CHECK(s == 1);
  // add(): a symmetric gradient, half of an off-diagonal on each side.
  Eigen::VectorXd g = Eigen::VectorXd::Zero(p->size());
  p->add(g, 0, 11, 2.0);
  p->add(g, 3, 10, 2.0);
  p->add(g, 7, 7, 3.0);
  CHECK(g[p->slot(0, 11)] == 1.0);
  CHECK(g[p->slot(11, 0)] == 1.0);
  CHECK(g[p->slot(3, 10)] == 1.0);
  CHECK(g[p->slot(7, 7)] == 3.0);
  CHECK_THROWS_AS(p->add(g, 3, 4, 1.0), std::logic_error);
}

TEST_CASE("sparse factor: log det, solve, draws and the selected inverse against dense algebra") {
  const auto p = crossed_pattern();
  vi::SparseFactor f(p);
  for (unsigned seed : {1u, 2u, 3u}) {
    const Eigen::MatrixXd A = random_spd_on(*p, seed);
    REQUIRE(f.factorize(values_of(*p, A)));
    const Eigen::LLT<Eigen::MatrixXd> dense(A);
    const double log_det = 2.0 * dense.matrixLLT().diagonal().array().log().sum();
    CHECK(f.log_det() == doctest::Approx(log_det).epsilon(1e-13));
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(p->dim(), -1.0, 2.0);
    CHECK((f.solve(b) - dense.solve(b)).cwiseAbs().maxCoeff() < 1e-13);
    const Eigen::MatrixXd Sigma = dense.solve(Eigen::MatrixXd::Identity(p->dim(), p->dim()));
    Eigen::VectorXd sigma;
    f.inverse_on_pattern(sigma);
    for (Index i = 0; i < p->dim(); ++i)
      for (Index k = 0; k < p->dim(); ++k)
        if (p->contains(i, k)) {
          INFO("Sigma(" << i << ", " << k << ")");
          CHECK(sigma[p->slot(i, k)] == doctest::Approx(Sigma(i, k)).epsilon(1e-12).scale(1e-12));
        }
    // Sigma^{1/2} applied to the identity: S S' = Sigma.
    Eigen::MatrixXd S = Eigen::MatrixXd::Identity(p->dim(), p->dim());
    f.scale_draws(S);
    CHECK((S * S.transpose() - Sigma).cwiseAbs().maxCoeff() < 1e-12);
  }
  CHECK(f.factor_nonzeros() >= p->dim());
  // Not positive definite: reported, not thrown.
  Eigen::MatrixXd bad = random_spd_on(*p, 4);
  bad(5, 5) = -1.0;
  CHECK_FALSE(f.factorize(values_of(*p, bad)));
  CHECK(f.factorize(values_of(*p, random_spd_on(*p, 5))));
}

TEST_CASE("sparse factor: a dense tail of crossed fill, and the same values factorized again") {
  // 2 globals; factor 0: 60 groups x 1 effect; factor 1: 50 groups x 2 effects; a random half of
  // the level pairs share rows: the fill leaves a dense tail of well over 32 columns, whose block
  // of Sigma the factor takes by dense algebra, and columns with contiguous rows before it.
  const auto p = half_crossed_pattern(2, 60, 1, 50, 2, 11);
  REQUIRE(p->dim() == 162);
  vi::SparseFactor f(p);
  for (unsigned seed : {21u, 22u}) {
    const Eigen::MatrixXd A = random_spd_on(*p, seed);
    const Eigen::VectorXd v = values_of(*p, A);
    REQUIRE(f.factorize(v));
    const Eigen::MatrixXd Sigma = Eigen::LLT<Eigen::MatrixXd>(A).solve(Eigen::MatrixXd::Identity(162, 162));
    for (int again = 0; again < 2; ++again) {  // the second time from the kept factor and inverse
      CAPTURE(again);
      if (again) REQUIRE(f.factorize(v));
      CHECK(worst_inverse_error(f, *p, Sigma) < 1e-13 * Sigma.cwiseAbs().maxCoeff());
    }
  }
  CHECK(f.dense_tail() >= 32);  // the dense path ran
  CHECK(f.dense_tail() < 162);   // and the recursion before it
  // A failed factorization forgets the kept one: the same values as before it are factorized anew.
  const Eigen::MatrixXd A = random_spd_on(*p, 23);
  Eigen::MatrixXd bad = A;
  bad(100, 100) = -1.0;
  REQUIRE(f.factorize(values_of(*p, A)));
  CHECK_FALSE(f.factorize(values_of(*p, bad)));
  REQUIRE(f.factorize(values_of(*p, A)));
  Eigen::VectorXd sigma;
  f.inverse_on_pattern(sigma);
  const Eigen::MatrixXd Sigma = Eigen::LLT<Eigen::MatrixXd>(A).solve(Eigen::MatrixXd::Identity(162, 162));
  CHECK(std::abs(sigma[p->slot(100, 100)] - Sigma(100, 100)) < 1e-13 * Sigma(100, 100));
  CHECK(f.log_det() == doctest::Approx(2.0 * Eigen::LLT<Eigen::MatrixXd>(A).matrixLLT().diagonal().array().log().sum())
                           .epsilon(1e-13));
}

TEST_CASE("sparse factor: the dense tail's factorization solves, draws and finds indefinite matrices") {
  // factor 0: 40 groups x 1 effect, factor 1: 30 groups x 1 effect, a random half of the level
  // pairs share rows, 3 globals: the Schur complement of the sparse columns is the dense tail.
  const auto p = half_crossed_pattern(3, 40, 1, 30, 1, 3);
  REQUIRE(p->dim() == 73);
  vi::SparseFactor f(p);
  CAPTURE(f.dense_tail());
  REQUIRE(f.dense_tail() >= 32);
  REQUIRE(f.dense_tail() < 73);
  CAPTURE(f.dense_update_columns());
  REQUIRE(f.dense_update_columns() > 0);  // some of the Schur complement by a dense rank update
  const Eigen::MatrixXd A = random_spd_on(*p, 31);
  REQUIRE(f.factorize(values_of(*p, A)));
  const Eigen::LLT<Eigen::MatrixXd> dense(A);
  CHECK(f.log_det() == doctest::Approx(2.0 * dense.matrixLLT().diagonal().array().log().sum()).epsilon(1e-13));
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(73, -3.0, 1.0);
  CHECK((f.solve(b) - dense.solve(b)).cwiseAbs().maxCoeff() < 1e-13 * dense.solve(b).cwiseAbs().maxCoeff());
  const Eigen::MatrixXd Sigma = dense.solve(Eigen::MatrixXd::Identity(73, 73));
  Eigen::MatrixXd C = Eigen::MatrixXd::Identity(73, 73);
  f.scale_draws(C);
  CHECK((C * C.transpose() - Sigma).cwiseAbs().maxCoeff() < 1e-13 * Sigma.cwiseAbs().maxCoeff());
  // The selected inverse, its widest columns' tail sums by the dense product.
  CHECK(worst_inverse_error(f, *p, Sigma) < 1e-13 * Sigma.cwiseAbs().maxCoeff());
  // Indefinite by a shift past the smallest eigenvalue: the sparse columns succeed on their own,
  // the tail's LLT does not (and a shift under it succeeds). Then a NaN value, and the good one.
  const double lambda_min = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A).eigenvalues()[0];
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(73, 73);
  CHECK_FALSE(f.factorize(values_of(*p, A - (lambda_min + 1e-6) * I)));
  CHECK(f.factorize(values_of(*p, A - (lambda_min - 1e-6) * I)));
  Eigen::VectorXd with_nan = values_of(*p, A);
  with_nan[p->slot(72, 72)] = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(f.factorize(with_nan));
  with_nan = values_of(*p, A);
  with_nan[p->slot(0, 0)] = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(f.factorize(with_nan));
  REQUIRE(f.factorize(values_of(*p, A)));
  CHECK((f.solve(b) - dense.solve(b)).cwiseAbs().maxCoeff() < 1e-13 * dense.solve(b).cwiseAbs().maxCoeff());
}

TEST_CASE("sparse factor: all globals is one dense tail; a single coordinate is one column") {
  for (Index dim : {Index{1}, Index{5}, Index{40}}) {
    CAPTURE(dim);
    const auto p = std::make_shared<const BlockPattern>(dim, std::vector<BlockPattern::Factor>{},
                                                        std::vector<BlockPattern::Pair>{});
    vi::SparseFactor f(p);
    CHECK(f.dense_tail() == (dim >= 32 ? dim : 0));
    const Eigen::MatrixXd A = random_spd_on(*p, 41);
    REQUIRE(f.factorize(values_of(*p, A)));
    const Eigen::LLT<Eigen::MatrixXd> dense(A);
    CHECK(f.log_det() == doctest::Approx(2.0 * dense.matrixLLT().diagonal().array().log().sum()).epsilon(1e-13));
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(dim, 1.0, 2.0);
    CHECK((f.solve(b) - dense.solve(b)).cwiseAbs().maxCoeff() < 1e-13);
    const Eigen::MatrixXd Sigma = dense.solve(Eigen::MatrixXd::Identity(dim, dim));
    CHECK(worst_inverse_error(f, *p, Sigma) < 1e-13 * Sigma.cwiseAbs().maxCoeff());
    Eigen::MatrixXd bad = A;
    bad(dim - 1, dim - 1) = -1.0;
    CHECK_FALSE(f.factorize(values_of(*p, bad)));
  }
}

TEST_CASE("sparse factor: one factor of many groups has no fill beyond the pattern") {
  // 2 globals, 500 groups x 2 effects: AMD eliminates the groups first (an arrowhead).
  const auto p = std::make_shared<const BlockPattern>(1002, std::vector<BlockPattern::Factor>{{2, 500, 2}},
                                                      std::vector<BlockPattern::Pair>{});
  vi::SparseFactor f(p);
  REQUIRE(f.factorize(values_of(*p, random_spd_on(*p, 7))));
  // The lower triangle: 3 global entries, and per group 3 within + 2 x 2 cross.
  CHECK(f.factor_nonzeros() == 3 + 500 * (3 + 4));
}

TEST_CASE("sparse factor: draws as rows are mu + Sigma^{1/2} eps, the draws of scale_draws") {
  // zeta_s = mu + C eps_s with C C' = Sigma: eps = the identity gives zeta - mu = C', so
  // (zeta - mu)' (zeta - mu) = Sigma; and any eps gives scale_draws' draws, transposed.
  const auto p = crossed_pattern();
  const Index P = p->dim();
  vi::SparseFactor f(p);
  const Eigen::MatrixXd A = random_spd_on(*p, 11);
  REQUIRE(f.factorize(values_of(*p, A)));
  const Eigen::MatrixXd Sigma = Eigen::LLT<Eigen::MatrixXd>(A).solve(Eigen::MatrixXd::Identity(P, P));
  const Eigen::VectorXd mu = Eigen::VectorXd::LinSpaced(P, -2.0, 3.0);
  Eigen::MatrixXd zeta(P, P);
  f.draws(Eigen::MatrixXd::Identity(P, P), mu, zeta);
  const Eigen::MatrixXd Z = zeta.rowwise() - mu.transpose();
  CHECK((Z.transpose() * Z - Sigma).cwiseAbs().maxCoeff() < 1e-12);
  // 150 draws: more than one block of draws, and a partial last one.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n01;
  Eigen::MatrixXd eps(150, P);
  for (Index s = 0; s < eps.rows(); ++s)
    for (Index j = 0; j < P; ++j) eps(s, j) = n01(rng);
  Eigen::MatrixXd E = eps.transpose();
  f.scale_draws(E);
  Eigen::MatrixXd rows(150, P);
  f.draws(eps, mu, rows);
  CHECK((rows - (E.transpose().rowwise() + mu.transpose())).cwiseAbs().maxCoeff() < 1e-13);
  Eigen::MatrixXd narrow(150, P - 1);
  CHECK_THROWS_AS(f.draws(eps, mu, narrow), std::invalid_argument);
}

}  // namespace test_sparse_factor
