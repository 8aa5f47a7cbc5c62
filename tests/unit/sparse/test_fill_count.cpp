// The factor's non-zeros counted before the factor is formed (fill_count.hpp) against the factor
// Eigen's SimplicialLLT forms (SparseFactor): one factor (no fill), crossed factors (fill-in), and
// the cap that stops a count too large to hold.
#include <doctest/doctest.h>

#include <random>

#include "inference/sparse/fill_count.hpp"
#include "inference/sparse/sparse_factor.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_fill_count {

using namespace bvi;
using vi::BlockPattern;
using Eigen::Index;

namespace {

// n_global globals first, then users x 1 effect and items x 1 effect, with each user sharing rows
// with `per_user` random items.
std::shared_ptr<const BlockPattern> users_items(Index n_global, std::int32_t users, std::int32_t items, int per_user,
                                                unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int32_t> item(0, items - 1);
  BlockPattern::Pair pair;
  pair.f1 = 0;
  pair.f2 = 1;
  for (std::int32_t u = 0; u < users; ++u)
    for (int k = 0; k < per_user; ++k) pair.levels.emplace_back(u, item(rng));
  std::vector<BlockPattern::Factor> factors{{n_global, users, 1}, {n_global + users, items, 1}};
  return std::make_shared<const BlockPattern>(n_global + users + items, factors, std::vector<BlockPattern::Pair>{pair});
}

Index formed_nonzeros(const std::shared_ptr<const BlockPattern>& p) {
  vi::SparseFactor f(p);
  // The identity on the pattern is positive definite; the factor's pattern is symbolic anyway.
  REQUIRE(f.factorize(p->diagonal_matrix(Eigen::VectorXd::Ones(p->dim()))));
  return f.factor_nonzeros();
}

}  // namespace

TEST_CASE("fill count: the factor's non-zeros, as the factor formed from the same pattern has them") {
  const Index big = Index(1) << 40;
  SUBCASE("one factor: an arrowhead, no fill") {
    const auto p = std::make_shared<const BlockPattern>(1002, std::vector<BlockPattern::Factor>{{2, 500, 2}},
                                                        std::vector<BlockPattern::Pair>{});
    CHECK(vi::cholesky_nonzeros(*p, big) == 3 + 500 * (3 + 4));
    CHECK(vi::cholesky_nonzeros(*p, big) == formed_nonzeros(p));
  }
  SUBCASE("crossed factors fill in") {
    for (unsigned seed : {1u, 2u, 3u}) {
      const auto p = users_items(3, 80, 30, 6, seed);
      const Index formed = formed_nonzeros(p);
      CHECK(vi::cholesky_nonzeros(*p, big) == formed);
      // More than the pattern's lower triangle: eliminating users joins the items they share.
      CHECK(formed > Index(p->lower_entries().size()));
    }
  }
}

TEST_CASE("fill count: the cap stops the count") {
  const auto p = users_items(2, 200, 100, 8, 4);
  const Index n = vi::cholesky_nonzeros(*p, Index(1) << 40);
  CHECK(vi::cholesky_nonzeros(*p, n) == n);
  CHECK(vi::cholesky_nonzeros(*p, n - 1) == n);  // cap + 1: over
  CHECK(vi::cholesky_nonzeros(*p, 1000) == 1001);
  CHECK(vi::cholesky_nonzeros(*p, 10) == 11);  // fewer than the diagonal
  CHECK(vi::max_factor_nonzeros() == 2147483647);
}

}  // namespace test_fill_count
