// The ordinal likelihoods' ops: the kernel l(a, b) = log(F(b) - F(a)) and its partials against
// mpmath at 60 digits (tests/reference/ordinal_table.py) in the tails, with equal-ish bounds and
// infinite ones; ordinal_lpmf (composed path) and ordinal_glm (fused) against a long-double
// formula of the category probabilities written here, their gradients against central differences.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_ordinal_lpmf {

using namespace bvi;
using bvi::test::arr;

namespace {
const double inf = std::numeric_limits<double>::infinity();

struct KernelRow {
  int link;
  double a, b, l, da, db;
};
// tests/reference/ordinal_table.py
const KernelRow kTable[] = {
    {0, -inf, -2.0, -2.1269280110429725, 0.0, 0.88079707797788244},
    {0, -inf, 0.5, -0.47407698418010668, 0.0, 0.37754066879814544},
    {0, -inf, 40.0, -4.248354255291589e-18, 0.0, 4.248354255291589e-18},
    {0, -inf, -40.0, -40.0, 0.0, 1.0},
    {0, 1.3, inf, -1.5410084538329922, -0.78583498304255862, 0.0},
    {0, -30.0, inf, -9.3576229688397368e-14, -9.357622968839299e-14, 0.0},
    {0, 45.0, inf, -45.0, -1.0, 0.0},
    {0, -1.0, 0.5, -1.0398211306237835, -0.55615833815886337, 0.66475758558701368},
    {0, -0.20000000000000001, -0.19989999999999999, -10.606613128160388, -9999.9501743343466, 10000.049817577191},
    {0, 2.0, 2.0000000999999998, -18.371951712760551, -1.0000000397162875e7, 9.9999996355687086e6},
    {0, 30.0, 31.0, -30.45867514538721, -1.5819767068692328, 0.58197670686936085},
    {0, -31.0, -30.0, -30.45867514538721, -0.58197670686936085, 1.5819767068692328},
    {0, -5.0, 7.0, -0.0076329591741213916, -0.0066989951743897612, 0.00091719544450555096},
    {0, 0.0, 1.0000000000000001e-9, -22.109560198066302, -9.9999999999999994e8, 9.9999999999999994e8},
    {0, -1.0000000000000001e-9, 1.0000000000000001e-9, -21.416413017506356, -4.9999999999999997e8, 4.9999999999999997e8},
    {0, 8.0, 9.5, -8.252892714326979, -1.2868815666584018, 0.28729176301637886},
    {0, -9.5, -8.0, -8.252892714326979, -0.28729176301637886, 1.2868815666584018},
    {0, -38.0, -37.5, -38.432752129567189, -1.5414940825367983, 2.5414940825367982},
    {0, 20.0, 21.0, -20.458675148206492, -1.5819767048081728, 0.58197670762758247},
    {1, -inf, -2.0, -3.7831843336820319, 0.0, 2.3732155328228409},
    {1, -inf, 0.5, -0.36894641528865639, 0.0, 0.50916043383703349},
    {1, -inf, 40.0, 0.0, 0.0, 0.0},
    {1, -inf, -40.0, -804.60844201375379, 0.0, 40.024968847207264},
    {1, 1.3, inf, -2.3351032786624425, -1.7703278323596511, 0.0},
    {1, -30.0, inf, 0.0, -1.4736461348785475e-196, 0.0},
    {1, 45.0, inf, -1017.2260942419524, -45.022200328343595, 0.0},
    {1, -1.0, 0.5, -0.62959563255286351, -0.45414311440343163, 0.66077433246496463},
    {1, -0.20000000000000001, -0.19989999999999999, -10.149268906830696, -9999.9000169982425, 10000.099966998076},
    {1, 2.0, 2.0000000999999998, -19.037034285799571, -1.0000001016365839e7, 9.9999990163657888e6},
    {1, 30.0, 31.0, -454.32124395634325, -30.033259667435327, 1.7045932838228663e-12},
    {1, -31.0, -30.0, -454.32124395634325, -1.7045932838228663e-12, 30.033259667435327},
    {1, -5.0, 7.0, -2.8665289277667434e-7, -1.4867199409068084e-6, 9.1347230268589984e-12},
    {1, 0.0, 1.0000000000000001e-9, -21.642204370151084, -9.9999999999999994e8, 9.9999999999999994e8},
    {1, -1.0000000000000001e-9, 1.0000000000000001e-9, -20.949057189591139, -4.9999999999999997e8, 4.9999999999999997e8},
    {1, 8.0, 9.5, -35.013438846876523, -8.1213818126868467, 1.6199993996245251e-5},
    {1, -9.5, -8.0, -35.013438846876523, -1.6199993996245251e-5, 8.1213818126868467},
    {1, -38.0, -37.5, -707.66898932377257, -2.3824906724831024e-7, 37.52662911000222},
    {1, 20.0, 21.0, -203.91715537228816, -20.049753092405007, 2.5065256298816577e-8},
};

bool near_value(double got, double want, double tol) {
  if (std::isinf(want)) return got == want;
  return std::abs(got - want) <= tol * std::max(1.0, std::abs(want));
}

// P(y = k) for the 1-based category k from the definitions, in long double.
long double cdf(int link, long double x) {
  if (std::isinf(x)) return x > 0 ? 1.0L : 0.0L;
  return link == 0 ? 1.0L / (1.0L + std::exp(-x)) : 0.5L * std::erfc(-x / std::sqrt(2.0L));
}
double naive_log_p(int link, int k, const double* c, Eigen::Index stride, int K, double eta) {
  const long double hi = k < K ? c[(k - 1) * stride] - static_cast<long double>(eta) : inf;
  const long double lo = k > 1 ? c[(k - 2) * stride] - static_cast<long double>(eta) : -inf;
  return static_cast<double>(std::log(cdf(link, hi) - cdf(link, lo)));
}

const double kY[] = {1, 2, 3, 4, 2, 4};  // K = 4, every category

// ordinal_lpmf over kY, and its reference: naive_log_p of every draw (row of x[1]) and row.
auto lpmf_of_ky(ad::OrdinalLink lk) {
  return [lk](ad::Tape&, const std::vector<ad::Var>& v) { return ad::ordinal_lpmf(kY, v[0], v[1], lk); };
}
auto naive_lpmf_of_ky(int link) {
  return [link](const test::Arrays& x) {
    Eigen::ArrayXXd out(x[0].rows(), x[0].cols());
    for (Eigen::Index s = 0; s < x[0].rows(); ++s)
      for (Eigen::Index n = 0; n < x[0].cols(); ++n)
        out(s, n) = naive_log_p(link, static_cast<int>(kY[n]), x[1].data() + s, x[1].rows(), 4, x[0](s, n));
    return out;
  };
}
}  // namespace

TEST_CASE("ordinal kernel: log(F(b) - F(a)) and its partials against mpmath") {
  for (const KernelRow& r : kTable) {
    double da = 0, db = 0;
    const double l = r.link == 0 ? ad::detail::ordinal_logit_term(r.a, r.b, &da, &db)
                                 : ad::detail::ordinal_probit_term(r.a, r.b, &da, &db);
    const double l_only = r.link == 0 ? ad::detail::ordinal_logit_term(r.a, r.b, nullptr, nullptr)
                                      : ad::detail::ordinal_probit_term(r.a, r.b, nullptr, nullptr);
    INFO("link " << r.link << " a " << r.a << " b " << r.b);
    // Known limit: the probit's log form, log Phi(b) + log1mexp(log Phi(a) - log Phi(b)), keeps only
    // |log Phi| eps / (b - a) of its digits for close bounds away from 0 (2 and 2 + 1e-7: ~1e-9);
    // a quadrature branch for close bounds would restore them (not in yet).
    const bool close_tail = r.link == 1 && std::abs(r.b - r.a) < 1e-3 && std::abs(r.a) > 1;
    CHECK(near_value(l, r.l, close_tail ? 1e-8 : 1e-12));
    CHECK(l_only == l);
    CHECK(near_value(da, r.da, close_tail ? 1e-7 : 1e-9));
    CHECK(near_value(db, r.db, close_tail ? 1e-7 : 1e-9));
  }
  // Out of order: NaN; equal bounds: probability 0.
  for (int link = 0; link < 2; ++link) {
    double da = 0, db = 0;
    const double bad = link == 0 ? ad::detail::ordinal_logit_term(1.0, 0.5, &da, &db)
                                 : ad::detail::ordinal_probit_term(1.0, 0.5, &da, &db);
    CHECK(std::isnan(bad));
    const double zero = link == 0 ? ad::detail::ordinal_logit_term(0.5, 0.5, nullptr, nullptr)
                                  : ad::detail::ordinal_probit_term(-0.5, -0.5, nullptr, nullptr);
    CHECK(zero == -inf);
  }
}

TEST_CASE("ordinal kernel: equal bounds (two cutpoints tied at a row's eta) give -inf, at 0 too") {
  // The category between equal cutpoints has probability 0: l = -inf, and the partials are the
  // limits as the bounds close, dl/db -> +inf and dl/da -> -inf (the logit's 1 / expm1(b - a)).
  // At 0 the probit's reflection (a >= 0 reflects to (-b, -a)) once recursed without end: a tie at
  // eta with a row's linear predictor (eta = 0, cutpoints all 0) overflowed the stack.
  const double ties[] = {0.0, -0.0, 1e-300, -1e-300, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 40.0, -40.0, 1e10, -1e10};
  for (int link = 0; link < 2; ++link)
    for (double t : ties)
      for (double sign : {1.0, -1.0}) {  // 0 and -0 as the two bounds, in either order
        const double a = t, b = t == 0 ? sign * 0.0 : t;
        INFO("link " << link << " a " << a << " b " << b << " (b signbit " << std::signbit(b) << ")");
        double da = 0, db = 0;
        const double l = link == 0 ? ad::detail::ordinal_logit_term(a, b, &da, &db)
                                   : ad::detail::ordinal_probit_term(a, b, &da, &db);
        const double l_only = link == 0 ? ad::detail::ordinal_logit_term(a, b, nullptr, nullptr)
                                        : ad::detail::ordinal_probit_term(a, b, nullptr, nullptr);
        CHECK(l == -inf);
        CHECK(l_only == -inf);
        CHECK(da == -inf);
        CHECK(db == inf);
      }
  // Just apart, either side of 0: finite, and the partials of the right sign (mpmath's values for
  // 0 and 1e-9 are in the table above).
  for (int link = 0; link < 2; ++link) {
    double da = 0, db = 0;
    const double l = link == 0 ? ad::detail::ordinal_logit_term(-1e-12, 0.0, &da, &db)
                               : ad::detail::ordinal_probit_term(0.0, 1e-12, &da, &db);
    CHECK(std::isfinite(l));
    CHECK(da < -1e11);
    CHECK(db > 1e11);
  }
}

TEST_CASE("ordinal_lpmf and ordinal_glm: cutpoints tied at eta, at 0 and elsewhere") {
  // S = 3 draws, m = 6 rows, K = 4. Draw 1: eta = 0 and every cutpoint 0 (the reviewer's
  // `eval` row 0,0,0,0,0,0); draw 2: c2 = c3 = 0.7, eta mixed; draw 3: c1 = c2 = 0 at eta = 0
  // and elsewhere. Rows in a category between tied cutpoints give -inf (the reference's
  // log(F(b) - F(a)) = log 0); the others stay finite, their gradients checked by central
  // differences where the tied rows leave them defined.
  const Eigen::ArrayXXd eta = arr({{0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
                                   {-0.7, 0.1, 1.9, 0.4, -2.5, 3.0},
                                   {0.0, 0.0, 0.0, 0.0, 0.3, -0.4}});
  const Eigen::ArrayXXd cut = arr({{0.0, 0.0, 0.0}, {-1.0, 0.7, 0.7}, {0.0, 0.0, 1.0}});
  for (int link = 0; link < 2; ++link) {
    const ad::OrdinalLink lk = link == 0 ? ad::OrdinalLink::logit : ad::OrdinalLink::probit;
    const auto f = lpmf_of_ky(lk);
    const auto r = naive_lpmf_of_ky(link);
    // Some rows of each draw are -inf (the checker compares them exactly).
    const Eigen::ArrayXXd want = r({eta, cut});
    REQUIRE(want(0, 1) == -inf);
    REQUIRE(std::isfinite(want(0, 0)));
    test::check_op(link == 0 ? "ordinal_lpmf logit, tied" : "ordinal_lpmf probit, tied", f, r, {eta, cut},
                   {1e-12, 1e-6, 1e-6, true});
  }
  // The fused op over one row per category at eta = 0 (x = 0), each draw's cutpoints tied at 0
  // somewhere, and its vectorized probit path (equal bounds flagged for the scalar kernel): the sum
  // over rows is -inf for each draw, whichever link.
  const double x0[] = {0.0, 0.0, 0.0, 0.0};
  const double y[] = {1, 2, 3, 4};
  ad::GlmRows rows;
  rows.y = y;
  rows.rows = 4;
  const Eigen::ArrayXXd beta = Eigen::ArrayXXd::Zero(5, 1);
  const Eigen::ArrayXXd tied = arr({{0.0, 0.0, 0.0}, {0.0, 0.0, 1.0}, {-1.0, 0.0, 0.0}, {-0.0, 0.0, 2.0}, {-2.0, 1.5, 1.5}});
  for (int link = 0; link < 2; ++link) {
    const ad::OrdinalLink lk = link == 0 ? ad::OrdinalLink::logit : ad::OrdinalLink::probit;
    auto f = [lk, &x0, &rows](ad::Tape&, const std::vector<ad::Var>& v) {
      return ad::ordinal_glm<double>(nullptr, v[0], v[1], x0, rows, lk);
    };
    const Eigen::ArrayXXd ones = Eigen::ArrayXXd::Ones(tied.rows(), 1);
    const test::AdRun got = test::run_ad(f, {beta, tied}, 3u, &ones);
    REQUIRE(!got.threw);
    for (Eigen::Index s = 0; s < tied.rows(); ++s) CHECK(got.value(s, 0) == -inf);
  }
}

TEST_CASE("ordinal_lpmf: values and gradients in eta and the cutpoints") {
  // S = 2 draws, m = 6 rows, K = 4 (3 cutpoints per draw, increasing).
  const Eigen::ArrayXXd eta = arr({{-0.7, 0.1, 1.9, 0.4, -2.5, 3.0}, {0.3, -1.2, 0.8, 2.2, 0.0, -0.4}});
  const Eigen::ArrayXXd cut = arr({{-1.0, 0.3, 1.5}, {-0.5, 0.2, 2.0}});
  for (int link = 0; link < 2; ++link) {
    const ad::OrdinalLink lk = link == 0 ? ad::OrdinalLink::logit : ad::OrdinalLink::probit;
    const auto f = lpmf_of_ky(lk);
    const auto r = naive_lpmf_of_ky(link);
    test::check_op(link == 0 ? "ordinal_lpmf logit" : "ordinal_lpmf probit", f, r, {eta, cut},
                   {1e-12, 1e-6, 1e-6, true});
  }
}

TEST_CASE("ordinal_glm: the fused path against the per-row formula, double and float features") {
  // S = 2, m = 6 rows, D = 2 features; eta = alpha + x . beta.
  const double x[] = {0.5, -1.0, 1.5, 0.2, -0.3, 0.8, 2.0, -1.1, 0.0, 0.4, -1.7, 0.9};
  const float xf[] = {0.5f, -1.0f, 1.5f, 0.2f, -0.3f, 0.8f, 2.0f, -1.1f, 0.0f, 0.4f, -1.7f, 0.9f};
  const Eigen::ArrayXXd alpha = arr({{0.2}, {-0.3}});
  const Eigen::ArrayXXd beta = arr({{0.7, -0.4}, {-1.1, 0.6}});
  const Eigen::ArrayXXd cut = arr({{-1.0, 0.3, 1.5}, {-0.5, 0.2, 2.0}});
  ad::GlmRows rows;
  rows.y = kY;
  rows.rows = 6;
  for (int link = 0; link < 2; ++link) {
    const ad::OrdinalLink lk = link == 0 ? ad::OrdinalLink::logit : ad::OrdinalLink::probit;
    auto r = [link, &x](const test::Arrays& v) {
      Eigen::ArrayXXd out = Eigen::ArrayXXd::Zero(v[0].rows(), 1);
      for (Eigen::Index s = 0; s < v[0].rows(); ++s)
        for (int n = 0; n < 6; ++n) {
          const double e = v[0](s, 0) + x[2 * n] * v[1](s, 0) + x[2 * n + 1] * v[1](s, 1);
          out(s, 0) += naive_log_p(link, static_cast<int>(kY[n]), v[2].data() + s, v[2].rows(), 4, e);
        }
      return out;
    };
    auto f = [lk, &x, &rows](ad::Tape&, const std::vector<ad::Var>& v) {
      return ad::ordinal_glm<double>(&v[0], v[1], v[2], x, rows, lk);
    };
    test::check_op("ordinal_glm", f, r, {alpha, beta, cut}, {1e-12, 1e-6, 1e-6, true});
    auto ff = [lk, &xf, &rows](ad::Tape&, const std::vector<ad::Var>& v) {
      return ad::ordinal_glm<float>(&v[0], v[1], v[2], xf, rows, lk);
    };
    test::check_op("ordinal_glm float", ff, r, {alpha, beta, cut}, {1e-5, 1e-4, 1e-6, true});
  }
}

// ordinal_glm's vectorized logit path (each row's S draws at once) for one row of category k
// (K = 3), eta = 0 (x = 0): cutpoints S x 2, its values and d/d cutpoints.
test::AdRun logit_row(int k, const Eigen::ArrayXXd& cut) {
  static const double x0[] = {0.0};
  const double y[] = {static_cast<double>(k)};
  ad::GlmRows rows;
  rows.y = y;
  rows.rows = 1;
  auto f = [&rows](ad::Tape&, const std::vector<ad::Var>& v) {
    return ad::ordinal_glm<double>(nullptr, v[0], v[1], x0, rows, ad::OrdinalLink::logit);
  };
  const Eigen::ArrayXXd ones = Eigen::ArrayXXd::Ones(cut.rows(), 1);
  return test::run_ad(f, {Eigen::ArrayXXd::Zero(cut.rows(), 1), cut}, 3u, &ones);
}

TEST_CASE("ordinal_glm logit, vectorized over draws: the mpmath table, each entry one draw") {
  // Category 2 for two finite bounds (c1 = a, c2 = b), 1 for a = -inf (c1 = b), 3 for b = +inf
  // (c2 = a): l and its partials against mpmath, as the scalar kernel is held.
  for (int k = 1; k <= 3; ++k) {
    std::vector<const KernelRow*> in;
    for (const KernelRow& r : kTable)
      if (r.link == 0 && (k == 1) == std::isinf(r.a) && (k == 3) == std::isinf(r.b) && !(std::isinf(r.a) && std::isinf(r.b)))
        in.push_back(&r);
    REQUIRE(!in.empty());
    Eigen::ArrayXXd cut(static_cast<Eigen::Index>(in.size()), 2);
    for (std::size_t s = 0; s < in.size(); ++s) {
      const KernelRow& r = *in[s];
      const auto i = static_cast<Eigen::Index>(s);
      cut(i, 0) = k == 1 ? r.b : (k == 3 ? r.a - 1.0 : r.a);
      cut(i, 1) = k == 1 ? r.b + 1.0 : (k == 3 ? r.a : r.b);
    }
    const test::AdRun got = logit_row(k, cut);
    REQUIRE(!got.threw);
    for (std::size_t s = 0; s < in.size(); ++s) {
      const KernelRow& r = *in[s];
      const auto i = static_cast<Eigen::Index>(s);
      INFO("category " << k << " a = " << r.a << " b = " << r.b);
      CHECK(near_value(got.value(i, 0), r.l, 1e-12));
      const double da = k == 1 ? 0.0 : got.grads[1](i, k == 3 ? 1 : 0);
      const double db = k == 3 ? 0.0 : got.grads[1](i, k == 1 ? 0 : 1);
      CHECK(near_value(da, r.da, 1e-9));
      CHECK(near_value(db, r.db, 1e-9));
    }
  }
}

TEST_CASE("ordinal_glm logit, vectorized over draws: against the scalar kernel, over the whole range") {
  // 37 draws (not a multiple of any SIMD width) with bounds from -800 to 800, close ones, equal
  // ones and ones out of order (NaN): the same numbers as ordinal_logit_term, which is tested
  // against mpmath above, to 1e-13 (relative, or absolute below 1).
  const double ends[] = {-800.0, -710.0, -40.0, -3.0, -0.7, -1e-9, 0.0, 2e-9, 0.3, 0.69, 1.5, 36.0, 720.0};
  const int n = static_cast<int>(sizeof ends / sizeof ends[0]);
  for (int k = 1; k <= 3; ++k) {
    Eigen::ArrayXXd cut(37, 2);
    for (int s = 0; s < 37; ++s) {
      cut(s, 0) = ends[(s * 5) % n];
      cut(s, 1) = ends[(s * 7 + 3) % n];
    }
    const test::AdRun got = logit_row(k, cut);
    REQUIRE(!got.threw);
    for (int s = 0; s < 37; ++s) {
      const double a = k == 1 ? -inf : cut(s, 0), b = k == 3 ? inf : cut(s, 1);
      const double lo = k == 1 ? -inf : cut(s, k - 2), hi = k == 3 ? inf : cut(s, k - 1);
      double da = 0, db = 0;
      const double l = ad::detail::ordinal_logit_term(k == 1 ? -inf : lo, k == 3 ? inf : hi, &da, &db);
      INFO("category " << k << " a = " << a << " b = " << b);
      if (std::isnan(l)) {
        CHECK(std::isnan(got.value(s, 0)));
        continue;
      }
      CHECK(near_value(got.value(s, 0), l, 1e-13));
      if (k > 1 && std::isfinite(da)) CHECK(near_value(got.grads[1](s, k - 2), da, 1e-13));
      if (k < 3 && std::isfinite(db)) CHECK(near_value(got.grads[1](s, k - 1), db, 1e-13));
    }
  }
}

TEST_CASE("ordered transform: increasing values, log-Jacobian and gradients") {
  // One block of 3 columns after an unconstrained one.
  std::vector<ad::ColumnTransform> tr{ad::ColumnTransform{}};
  for (const auto& t : ad::ordered_block(3)) tr.push_back(t);
  const Eigen::ArrayXXd u = arr({{0.4, -1.0, 0.5, -2.0}, {-0.3, 2.0, -30.0, 1.2}});
  auto f = [&tr](ad::Tape& tape, const std::vector<ad::Var>& v) {
    ad::Constrained c = ad::constrain(v[0], tr);
    const Eigen::ArrayXd w = (Eigen::ArrayXd(4) << 0.3, -1.2, 0.7, 2.0).finished();
    return ad::add(ad::matmul(c.x, tape.constant(w)), ad::multiply(c.log_jacobian, tape.constant(3.0)));
  };
  // x_1 = u_1, x_k = x_{k-1} + e^{u_k}; log J = u_2 + u_3, written out.
  auto r = [](const test::Arrays& a) {
    Eigen::ArrayXXd out(a[0].rows(), 1);
    for (Eigen::Index s = 0; s < a[0].rows(); ++s) {
      const double x0 = a[0](s, 0), c1 = a[0](s, 1), c2 = c1 + std::exp(a[0](s, 2)), c3 = c2 + std::exp(a[0](s, 3));
      out(s, 0) = 0.3 * x0 - 1.2 * c1 + 0.7 * c2 + 2.0 * c3 + 3.0 * (a[0](s, 2) + a[0](s, 3));
    }
    return out;
  };
  test::check_op("ordered", f, r, {u}, {1e-12, 1e-6, 1e-6, true});
  Eigen::MatrixXd x(2, 4);
  ad::constrain_values(u.matrix(), tr, x);
  CHECK(x(0, 2) == doctest::Approx(-1.0 + std::exp(0.5)));
  CHECK(x(1, 3) > x(1, 2));
  CHECK(x(1, 2) > x(1, 1));  // e^-30 still increases the entry above it
  // A block must be given whole.
  std::vector<ad::ColumnTransform> cut(tr.begin(), tr.begin() + 3);
  ad::Tape tape;
  CHECK_THROWS_AS(ad::constrain(tape.constant(u.leftCols(3)), cut), std::invalid_argument);
}

}  // namespace test_ordinal_lpmf
