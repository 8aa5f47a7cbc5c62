// ordinal_glm's vectorized probit path (each row's S draws on SIMD packets,
// inference/ad/ops/ordinal_probit_packet.hpp): the mpmath table of tests/reference/ordinal_table.py
// (its probit rows, each entry one draw), and the scalar kernel ordinal_probit_term over bounds
// from -800 to 800, close ones, equal ones and ones out of order.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_ordinal_probit_vectorized {

using namespace bvi;

namespace {
const double inf = std::numeric_limits<double>::infinity();

struct Row {
  double a, b, l, da, db;
};
// tests/reference/ordinal_table.py, link 1 (probit): mpmath at 60 digits.
const Row kTable[] = {
    {-inf, -2.0, -3.7831843336820319, 0.0, 2.3732155328228409},
    {-inf, 0.5, -0.36894641528865639, 0.0, 0.50916043383703349},
    {-inf, 40.0, 0.0, 0.0, 0.0},
    {-inf, -40.0, -804.60844201375379, 0.0, 40.024968847207264},
    {1.3, inf, -2.3351032786624425, -1.7703278323596511, 0.0},
    {-30.0, inf, 0.0, -1.4736461348785475e-196, 0.0},
    {45.0, inf, -1017.2260942419524, -45.022200328343595, 0.0},
    {-1.0, 0.5, -0.62959563255286351, -0.45414311440343163, 0.66077433246496463},
    {-0.20000000000000001, -0.19989999999999999, -10.149268906830696, -9999.9000169982425, 10000.099966998076},
    {2.0, 2.0000000999999998, -19.037034285799571, -1.0000001016365839e7, 9.9999990163657888e6},
    {30.0, 31.0, -454.32124395634325, -30.033259667435327, 1.7045932838228663e-12},
    {-31.0, -30.0, -454.32124395634325, -1.7045932838228663e-12, 30.033259667435327},
    {-5.0, 7.0, -2.8665289277667434e-7, -1.4867199409068084e-6, 9.1347230268589984e-12},
    {0.0, 1.0000000000000001e-9, -21.642204370151084, -9.9999999999999994e8, 9.9999999999999994e8},
    {-1.0000000000000001e-9, 1.0000000000000001e-9, -20.949057189591139, -4.9999999999999997e8, 4.9999999999999997e8},
    {8.0, 9.5, -35.013438846876523, -8.1213818126868467, 1.6199993996245251e-5},
    {-9.5, -8.0, -35.013438846876523, -1.6199993996245251e-5, 8.1213818126868467},
    {-38.0, -37.5, -707.66898932377257, -2.3824906724831024e-7, 37.52662911000222},
    {20.0, 21.0, -203.91715537228816, -20.049753092405007, 2.5065256298816577e-8},
};

bool near_value(double got, double want, double tol) {
  if (std::isinf(want)) return got == want;
  return std::abs(got - want) <= tol * std::max(1.0, std::abs(want));
}

// One row of category k (K = 3), eta = 0: cutpoints S x 2, the values and d/d cutpoints.
test::AdRun probit_row(int k, const Eigen::ArrayXXd& cut) {
  static const double x0[] = {0.0};
  const double y[] = {static_cast<double>(k)};
  ad::GlmRows rows;
  rows.y = y;
  rows.rows = 1;
  auto f = [&rows](ad::Tape&, const std::vector<ad::Var>& v) {
    return ad::ordinal_glm<double>(nullptr, v[0], v[1], x0, rows, ad::OrdinalLink::probit);
  };
  const Eigen::ArrayXXd ones = Eigen::ArrayXXd::Ones(cut.rows(), 1);
  return test::run_ad(f, {Eigen::ArrayXXd::Zero(cut.rows(), 1), cut}, 3u, &ones);
}

}  // namespace

TEST_CASE("ordinal_glm probit, vectorized over draws: the mpmath table, each entry one draw") {
  // Category 2 for two finite bounds (c1 = a, c2 = b), 1 for a = -inf (c1 = b), 3 for b = +inf (c2 = a).
  for (int k = 1; k <= 3; ++k) {
    std::vector<const Row*> in;
    for (const Row& r : kTable)
      if ((k == 1) == std::isinf(r.a) && (k == 3) == std::isinf(r.b)) in.push_back(&r);
    REQUIRE(!in.empty());
    Eigen::ArrayXXd cut(static_cast<Eigen::Index>(in.size()), 2);
    for (std::size_t s = 0; s < in.size(); ++s) {
      const Row& r = *in[s];
      const auto i = static_cast<Eigen::Index>(s);
      cut(i, 0) = k == 1 ? r.b : (k == 3 ? r.a - 1.0 : r.a);
      cut(i, 1) = k == 1 ? r.b + 1.0 : (k == 3 ? r.a : r.b);
    }
    const test::AdRun got = probit_row(k, cut);
    REQUIRE(!got.threw);
    for (std::size_t s = 0; s < in.size(); ++s) {
      const Row& r = *in[s];
      const auto i = static_cast<Eigen::Index>(s);
      INFO("category " << k << " a = " << r.a << " b = " << r.b << ": l " << got.value(i, 0));
      // As the scalar kernel: bounds 1e-7 apart away from 0 keep |log Phi| eps / (b - a) (~1e-9).
      const bool close_tail = std::abs(r.b - r.a) < 1e-3 && std::abs(r.a) > 1;
      CHECK(near_value(got.value(i, 0), r.l, close_tail ? 1e-8 : 1e-12));
      const double da = k == 1 ? 0.0 : got.grads[1](i, k == 3 ? 1 : 0);
      const double db = k == 3 ? 0.0 : got.grads[1](i, k == 1 ? 0 : 1);
      CHECK(near_value(da, r.da, close_tail ? 1e-7 : 1e-9));
      CHECK(near_value(db, r.db, close_tail ? 1e-7 : 1e-9));
    }
  }
}

TEST_CASE("ordinal_glm probit, vectorized over draws: against the scalar kernel, over the whole range") {
  // 37 draws (not a multiple of any SIMD width) with bounds from -800 to 800 (both tails, where Phi
  // underflows), near -1 (the switch between the tail and the erf forms) and 0.5 (the erf series),
  // close ones, equal ones (-inf) and ones out of order (NaN): the numbers of ordinal_probit_term,
  // which test_ordinal_lpmf.cpp holds against mpmath, to 1e-12 (relative, or absolute below 1).
  const double ends[] = {-800.0, -40.0, -8.3, -3.0, -1.0000001, -1.0, -0.99, -0.7, -1e-9, 0.0,
                         2e-9,   0.3,   0.49, 0.51, 0.69,       1.5,  6.0,   36.0, 720.0};
  const int n = static_cast<int>(sizeof ends / sizeof ends[0]);
  for (int k = 1; k <= 3; ++k) {
    Eigen::ArrayXXd cut(37, 2);
    for (int s = 0; s < 37; ++s) {
      cut(s, 0) = ends[(s * 5) % n];
      cut(s, 1) = ends[(s * 7 + 3) % n];
    }
    const test::AdRun got = probit_row(k, cut);
    REQUIRE(!got.threw);
    for (int s = 0; s < 37; ++s) {
      const double lo = k == 1 ? -inf : cut(s, k - 2), hi = k == 3 ? inf : cut(s, k - 1);
      double da = 0, db = 0;
      const double l = ad::detail::ordinal_probit_term(lo, hi, &da, &db);
      INFO("category " << k << " a = " << lo << " b = " << hi << ": l " << got.value(s, 0) << " against " << l);
      if (std::isnan(l)) {
        CHECK(std::isnan(got.value(s, 0)));
        continue;
      }
      const bool close = std::abs(hi - lo) < 1e-3 && std::abs(lo) > 0.5;
      CHECK(near_value(got.value(s, 0), l, close ? 1e-8 : 1e-12));
      if (k > 1 && std::isfinite(da)) CHECK(near_value(got.grads[1](s, k - 2), da, close ? 1e-7 : 1e-12));
      if (k < 3 && std::isfinite(db)) CHECK(near_value(got.grads[1](s, k - 1), db, close ? 1e-7 : 1e-12));
    }
  }
}

}  // namespace test_ordinal_probit_vectorized
