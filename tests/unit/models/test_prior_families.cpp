// Every prior family, looked up by its config name in the registry, against reference values
// computed outside this code: scipy.stats logpdf (cross-checked against mpmath) and, where
// scipy's double formula fails (far tails, huge df), mpmath at 50 digits; gradients with respect
// to x and every hyperparameter from mpmath.diff of the closed form. The rows are the output of
// tests/reference/prior_logpdf_table.py, pasted verbatim; rerun it to add points.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <string>
#include <vector>

#include "inference/ad/tape.hpp"
#include "models/priors/prior_family.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_prior_families {

using namespace bvi;

namespace {
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double qnan = std::numeric_limits<double>::quiet_NaN();

struct Row {
  const char* family;
  double x;
  std::vector<double> hypers;  // in the family's order
  double value;
  std::vector<double> grad;  // d/dx, then d/d each hyperparameter; empty where not differentiable
};

const std::vector<Row> kScipyRows = {
    {"normal", 1.5, {0.5, 2}, -1.7370857137646181, {-0.25, 0.25, -0.375}},
    {"normal", -30, {1, 0.5}, -1922.2257913526448, {124, -124, 7686}},  // tail
    {"student_t", 0.29999999999999999, {3, 0, 1}, -1.0600064541065986, {-0.38834951456310679, 0.031118588500661782, 0.38834951456310679, -0.88349514563106801}},
    {"student_t", -2.5, {0.69999999999999996, 1, 2}, -3.3446555500950614, {0.39534883720930231, 0.49110722729874384, -0.39534883720930231, 0.19186046511627905}},  // df < 1
    {"student_t", 1000000, {4, 0, 1}, -66.592646140043357, {-4.9999999999800003e-06, -12.482177224635441, 4.9999999999800003e-06, 3.99999999998}},  // tail
    {"student_t", 12, {30, 2, 0.5}, -41.504234463713424, {-2.8837209302325579, -0.85039613467584751, 2.8837209302325579, 55.674418604651166}},
    {"student_t", 1, {100, 0, 1}, -1.4239301996279625, {-1, 4.9833323665852402e-05, 1, 0}},  // large df
    {"cauchy", 0.5, {0, 1}, -1.3678734371636099, {-0.80000000000000004, 0.80000000000000004, -0.59999999999999998}},
    {"cauchy", -3, {1, 2}, -3.4473149788434458, {0.40000000000000002, -0.40000000000000002, 0.29999999999999999}},
    {"cauchy", 100000000, {0, 1}, -37.986091373754128, {-1.9999999999999997e-08, 1.9999999999999997e-08, 0.99999999999999978}},  // tail
    {"cauchy", 0.001, {0, 9.9999999999999995e-07}, -1.1447308858489009, {-1999.998000002, 1999.998000002, 999998.00000200002}},  // tail, tiny scale
    {"laplace", 0.5, {0, 1}, -1.1931471805599454, {-1, 1, -0.5}},
    {"laplace", -3, {1, 0.5}, -8, {2, -2, 14}},
    {"laplace", 600, {0, 1}, -600.69314718055989, {-1, 1, 599}},  // tail (scipy's exp underflows from 745)
    {"laplace", 2, {2, 3}, -1.791759469228055, {}},  // at loc
    {"logistic", 0.5, {0, 1}, -1.4481539683602134, {-0.24491866240370913, 0.24491866240370913, -0.87754066879814541}},
    {"logistic", -3, {1, 2}, -2.9470032026458903, {0.38079707797788243, -0.38079707797788243, 0.26159415595576491}},
    {"logistic", 800, {0, 1}, -800, {-1, 1, 799}},  // tail: exp(800) overflows
    {"logistic", -50, {0, 1}, -50, {1, -1, 49}},  // tail
    {"half_normal", 0.5, {1}, -0.35079135264472738, {-0.5, -0.75}},
    {"half_normal", 3, {0.20000000000000001}, -111.11635344021063, {-74.999999999999986, 1119.9999999999998}},
    {"half_normal", 0, {2}, -0.91893853320467267, {}},  // edge of the support
    {"half_normal", 40, {1}, -800.22579135264471, {-40, 1599}},  // tail
    {"half_normal", -1, {1}, -inf, {}},  // outside the support
    {"half_cauchy", 0.5, {1}, -0.67472625660366448, {-0.80000000000000004, -0.59999999999999998}},
    {"half_cauchy", 10000000, {2}, -31.994626826646186, {-1.99999999999992e-07, 0.49999999999995998}},  // tail
    {"half_cauchy", 0, {3}, -1.5501949939575643, {}},  // edge of the support
    {"half_cauchy", 2, {0.01}, -6.4430722520849431, {-0.99997500062498434, 99.995000124996878}},
    {"half_student_t", 0.5, {3, 1}, -0.46782708441063725, {-0.61538461538461542, 0.03774121133856171, -0.69230769230769229}},
    {"half_student_t", 100000, {1.5, 2}, -27.619264611472392, {-2.4999999985e-05, -9.687842057951098, 0.74999999925000005}},  // tail
    {"half_student_t", 0, {4, 1}, -0.2876820724517809, {}},  // edge of the support
    {"half_student_t", 7, {50, 2}, -6.5118942129062667, {-1.4337349397590362, -0.0091063391592300594, 4.5180722891566267}},  // large df
    {"exponential", 0.5, {2}, -0.30685281944005471, {-2, 0}},
    {"exponential", 0, {3}, 1.0986122886681098, {}},  // edge of the support
    {"exponential", 1000, {0.5}, -500.69314718055995, {-0.5, -998}},  // tail
    {"exponential", 1e-10, {0.001}, -6.9077552789822372, {-0.001, 999.99999999989996}},
    {"exponential", -0.5, {2}, -inf, {}},  // outside the support
    {"gamma", 0.5, {2, 3}, 0.004077396776274167, {-1, -0.017319226990302757, 0.16666666666666666}},
    {"gamma", 1e-08, {0.5, 1}, 8.6379754190514824, {-50000001, -16.457170717930943, 0.49999999000000001}},  // near 0, shape < 1
    {"gamma", 50, {2, 0.10000000000000001}, -5.6931471805599454, {-0.080000000000000002, 1.1866535773356333, -30}},
    {"gamma", 0, {1, 2}, 0.69314718055994529, {}},  // edge of the support, shape 1
    {"gamma", 3, {120, 40}, 0.37550060668127694, {-0.33333333333333331, 0.0041724536635172754, 0}},  // large shape
    {"lognormal", 0.5, {0, 1}, -0.46601785960382802, {-0.61370563888010943, -0.69314718055994529, -0.51954698608179861}},
    {"lognormal", 9.9999999999999995e-07, {0, 1}, -82.537593963851549, {12815510.557964275, -13.815510557964274, 189.86833197722234}},  // tail near 0
    {"lognormal", 1000000, {1, 2}, -35.957260129390612, {-4.2038776394910686e-06, 3.2038776394910684, 20.029663857661724}},  // tail
    {"lognormal", 2, {-1, 0.10000000000000001}, -142.64686937267507, {-85.157359027997259, 169.31471805599452, 2856.7473750380914}},
    {"lognormal", 0, {0, 1}, -inf, {}},  // x = 0: outside scipy's open support
    {"gamma", 1, {-1, 1}, qnan, {}},  // invalid shape
    {"student_t", 1, {0, 0, 1}, qnan, {}},  // invalid df
    {"half_cauchy", 1, {-2}, qnan, {}},  // invalid scale
};

const std::vector<Row> kMpmathRows = {
    {"student_t", 9.9999999999999997e+199, {3, 0, 1}, -1840.8717386675239, {-3.9999999999999999e-200, -459.27456527391513, 3.9999999999999999e-200, 3}},  // z^2 overflows: scipy gives -inf
    {"student_t", -1.0000000000000001e+300, {0.5, 2, 1.0000000000000001e-05}, -1043.7501478911372, {1.4999999999999998e-300, -700.56423062666897, -1.4999999999999998e-300, 49999.999999999993}},  // z overflows the double range
    {"student_t", 0.5, {1000000000000, 0.29999999999999999, 1.2}, -1.11514897888778, {-0.13888888888902393, 2.636959876543206e-25, 0.13888888888902393, -0.81018518518516269}},  // huge df: the lgamma difference cancels
    {"student_t", 3, {1e+17, 0, 1}, -5.4189385332046722, {-2.9999999999999996, -1.5499999999999996e-33, 2.9999999999999996, 7.9999999999999991}},  // df + 1 == df in doubles
    {"cauchy", 9.9999999999999997e+199, {0, 1}, -922.17876708346762, {-2e-200, 2e-200, 1}},  // z^2 overflows
    {"cauchy", -2.9999999999999999e+160, {1, 0.5}, -740.86233140184015, {6.6666666666666669e-161, -6.6666666666666669e-161, 2}},  // z^2 overflows
    {"laplace", 100000, {0, 1}, -100000.69314718056, {-1, 1, 99999}},  // scipy takes log of an underflowed pdf: -inf
    {"half_cauchy", 1.0000000000000001e+300, {1}, -1382.0026385017168, {-2.0000000000000001e-300, 1}},  // z^2 overflows
    {"half_student_t", 9.9999999999999992e+249, {2, 1}, -1726.2456725649743, {-3.0000000000000002e-250, -574.49284683879137, 2}},  // z^2 overflows
    {"half_student_t", 1, {1000000000000000, 2}, -1.0439385332046731, {-0.25000000000000017, 3.5937499999999999e-31, -0.37499999999999989}},  // huge df
};

bool close(double got, double want, double rtol, double atol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::abs(got - want) <= rtol * std::abs(want) + atol;
}

// The family's log density at one point, with the gradient in every input (x and hyperparameters
// are all leaves, as in a hierarchical prior).
void check_row(const Row& r) {
  const models::PriorFamily* fam = models::find_prior_family(r.family);
  REQUIRE(fam != nullptr);
  REQUIRE(fam->hyperparameters.size() == r.hypers.size());
  const std::size_t n = r.hypers.size() + 1;
  std::vector<double> val(n), adj(n, 0.0);
  val[0] = r.x;
  for (std::size_t k = 1; k < n; ++k) val[k] = r.hypers[k - 1];
  ad::Tape tape;
  std::vector<ad::Var> in;
  for (std::size_t k = 0; k < n; ++k) in.push_back(tape.leaf(&val[k], &adj[k], 1, 1));
  const ad::Var out = fam->log_density(in[0], in.data() + 1);
  INFO(std::string(r.family) << "(x = " << r.x << "): got " << std::setprecision(17) << out.value() << ", want " << r.value);
  // 1e-13 relative, or absolute where the value is a small difference of large constants
  // (gamma with shape 120: shape log(rate) and log Gamma(shape) are ~450, the value 0.38).
  CHECK(close(out.value(), r.value, 1e-13, 1e-13));
  if (r.grad.empty()) return;
  tape.backward(out);
  double largest = 0.0;
  for (double g : r.grad) largest = std::max(largest, std::abs(g));
  for (std::size_t k = 0; k < n; ++k) {
    INFO("d/d input " << k << ": got " << adj[k] << ", want " << r.grad[k]);
    // 1e-10 relative, with rounding slack only far below the largest partial (d/d scale of a
    // student_t at z = 1 is ((df + 1) w - 1)/scale, exactly 0, from two terms of order 1).
    CHECK(close(adj[k], r.grad[k], 1e-10, 1e-15 * largest));
  }
}
}  // namespace

TEST_CASE("prior families: values and gradients against scipy.stats and mpmath") {
  for (const Row& r : kScipyRows) check_row(r);
}

TEST_CASE("prior families: far tails and huge df, where a naive formula fails, against mpmath") {
  for (const Row& r : kMpmathRows) check_row(r);
}

TEST_CASE("prior families: every registered family has a reference row, and every row a family") {
  std::vector<std::string> seen;
  for (const Row& r : kScipyRows) seen.push_back(r.family);
  for (const auto* fam : models::prior_families()) {
    INFO(fam->name);
    CHECK(std::find(seen.begin(), seen.end(), fam->name) != seen.end());
  }
  CHECK(models::prior_families().size() == 11);
}

}  // namespace test_prior_families
