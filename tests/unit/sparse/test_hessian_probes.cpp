// The Hessian on a BlockPattern from n + sum K products (hessian_probes.hpp): every entry of a
// random symmetric matrix on the pattern is recovered exactly for one factor and for nested
// factors, and crossed factors are refused; BlockPattern::multiply against the dense product.
#include <doctest/doctest.h>

#include <random>

#include "inference/sparse/hessian_probes.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_hessian_probes {

using namespace bvi;
using Eigen::Index;
using vi::BlockPattern;

namespace {

// A dense random symmetric matrix, zero off the pattern.
Eigen::MatrixXd random_on_pattern(const BlockPattern& p, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> z;
  Eigen::MatrixXd m(p.dim(), p.dim());
  for (Index i = 0; i < p.dim(); ++i)
    for (Index k = 0; k <= i; ++k) m(i, k) = m(k, i) = p.contains(i, k) ? z(rng) : 0.0;
  return m;
}

// Every slot of the assembled values against the matrix, with steps of very different sizes.
void check_recovers(const std::shared_ptr<const BlockPattern>& p, unsigned seed) {
  const Eigen::MatrixXd h = random_on_pattern(*p, seed);
  vi::HessianProbes probes(p);
  Eigen::VectorXd step(p->dim());
  for (Index j = 0; j < p->dim(); ++j) step[j] = std::pow(10.0, double(j % 5) - 2.0);
  Eigen::MatrixXd products(probes.count(), p->dim());
  for (Index c = 0; c < probes.count(); ++c) {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(p->dim());
    for (Index j : probes.columns(c)) v[j] = step[j];
    products.row(c) = (h * v).transpose();
  }
  Eigen::VectorXd values;
  probes.assemble(products, step, values);
  REQUIRE(values.size() == p->size());
  long checked = 0;
  p->for_each_slot([&](Index i, Index k, Index slot) {
    CHECK(values[slot] == doctest::Approx(h(i, k)).epsilon(1e-12));
    ++checked;
  });
  CHECK(checked == p->size());
  // And the pattern's product with the values is the dense matrix's.
  const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(p->dim(), -1.0, 2.0);
  Eigen::VectorXd y(p->dim());
  p->multiply(values, x, y);
  CHECK((y - h * x).norm() <= 1e-12 * (h * x).norm());
}

}  // namespace

TEST_CASE("hessian probes: every entry on the pattern from n + sum K products") {
  SUBCASE("one factor of two correlated effects, three globals") {
    const auto p = std::make_shared<const BlockPattern>(
        3 + 40 * 2, std::vector<BlockPattern::Factor>{{3, 40, 2}}, std::vector<BlockPattern::Pair>{});
    CHECK(vi::HessianProbes(p).count() == 3 + 2);
    check_recovers(p, 1);
  }
  SUBCASE("nested factors: 30 inner levels in 6 outer ones, globals between the factors' columns") {
    BlockPattern::Pair pair;
    pair.f1 = 0;  // outer, 6 levels, 2 effects
    pair.f2 = 1;  // inner, 30 levels, 1 effect: level h in outer level h % 6
    for (std::int32_t h = 0; h < 30; ++h) pair.levels.emplace_back(h % 6, h);
    const auto p = std::make_shared<const BlockPattern>(
        2 + 12 + 1 + 30, std::vector<BlockPattern::Factor>{{2, 6, 2}, {15, 30, 1}},
        std::vector<BlockPattern::Pair>{pair});
    CHECK(vi::HessianProbes::why_not(*p).empty());
    CHECK(vi::HessianProbes(p).count() == 3 + 2 + 1);
    check_recovers(p, 2);
  }
  SUBCASE("the same with the inner factor listed first") {
    BlockPattern::Pair pair;
    pair.f1 = 0;  // inner, 30 levels
    pair.f2 = 1;  // outer, 6 levels
    for (std::int32_t h = 0; h < 30; ++h) pair.levels.emplace_back(h, h % 6);
    const auto p = std::make_shared<const BlockPattern>(
        1 + 30 + 6, std::vector<BlockPattern::Factor>{{1, 30, 1}, {31, 6, 1}},
        std::vector<BlockPattern::Pair>{pair});
    check_recovers(p, 3);
  }
  SUBCASE("crossed factors are refused") {
    BlockPattern::Pair pair;
    pair.f1 = 0;
    pair.f2 = 1;
    for (std::int32_t u = 0; u < 10; ++u)
      for (std::int32_t i = 0; i < 4; ++i) pair.levels.emplace_back(u, (u + i) % 7);
    const auto p = std::make_shared<const BlockPattern>(
        2 + 10 + 7, std::vector<BlockPattern::Factor>{{2, 10, 1}, {12, 7, 1}},
        std::vector<BlockPattern::Pair>{pair});
    CHECK(vi::HessianProbes::why_not(*p).find("crossed") != std::string::npos);
    CHECK_THROWS_AS(vi::HessianProbes{p}, std::invalid_argument);
  }
}

}  // namespace test_hessian_probes
