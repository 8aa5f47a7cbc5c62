// normal_lpdf against the closed form of scipy.stats.norm.logpdf, with every broadcasting
// combination of y, loc and scale, and the NaN a non-positive scale gives.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_normal_lpdf {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
using test::inf;
using test::qnan;

double at(const Eigen::ArrayXXd& a, Eigen::Index i, Eigen::Index j) {
  return a(a.rows() == 1 ? 0 : i, a.cols() == 1 ? 0 : j);
}
Eigen::ArrayXXd ref(const test::Arrays& x) {
  auto dim = [](Eigen::Index a, Eigen::Index b) {
    if (a != b && a != 1 && b != 1) throw std::invalid_argument("shapes");
    return a == 1 ? b : a;
  };
  const Eigen::Index R = dim(dim(x[0].rows(), x[1].rows()), x[2].rows());
  const Eigen::Index C = dim(dim(x[0].cols(), x[1].cols()), x[2].cols());
  Eigen::ArrayXXd o(R, C);
  for (Eigen::Index i = 0; i < R; ++i)
    for (Eigen::Index j = 0; j < C; ++j) {
      const double y = at(x[0], i, j), m = at(x[1], i, j), s = at(x[2], i, j);
      // scipy: norm.logpdf(y, m, s) = -((y-m)/s)^2/2 - log(sqrt(2 pi) s); nan for s <= 0
      o(i, j) = s > 0 ? -0.5 * std::pow((y - m) / s, 2) - std::log(std::sqrt(2 * M_PI) * s) : qnan;
    }
  return o;
}
auto f = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::normal_lpdf(v[0], v[1], v[2]); };
}  // namespace

TEST_CASE("normal_lpdf matches the closed form") {
  // scipy.stats.norm.logpdf(1.5, 0.5, 2.0) = -1.737085713764618
  ad::Tape tape;
  ad::Var v = ad::normal_lpdf(tape.constant(1.5), tape.constant(0.5), tape.constant(2.0));
  CHECK(v.value() == doctest::Approx(-1.737085713764618).epsilon(1e-15));

  const Eigen::ArrayXXd y = arr({{0.3, -1.2, 2.5}, {0.1, 4.0, -7.5}});
  const Eigen::ArrayXXd loc_row = arr({{0.0, 1.0, -1.0}}), scale_row = arr({{1.0, 0.5, 10.0}});
  check_op("draws x per-coefficient hyperparameters", f, ref, {y, loc_row, scale_row});
  check_op("scalar hyperparameters", f, ref, {y, arr({{0.2}}), arr({{3.0}})});
  check_op("per-draw scale (hierarchical)", f, ref, {y, arr({{0.0}}), arr({{0.7}, {1.9}})});
  check_op("all scalars", f, ref, {arr({{1.0}}), arr({{-1.0}}), arr({{0.3}})});
  check_op("empty", f, ref, {Eigen::ArrayXXd(0, 3), loc_row, scale_row});
  // exp(-z^2/2) underflows to 0 here, so a log of the naive density would be -inf.
  check_op("far tail", f, ref, {arr({{40.0, -45.0}}), arr({{0.0}}), arr({{1.0}})});
  check_op("mismatched shapes throw", f, ref, {y, arr({{1.0, 2.0}}), arr({{1.0}})});
}

TEST_CASE("normal_lpdf with a bad scale gives NaN, not a throw") {
  check_op("zero and negative scales", f, ref, {arr({{1.0, 2.0}}), arr({{0.0}}), arr({{0.0, -1.0}})},
           {1e-13, 1e-6, 1e-6, false});
  check_op("non-finite y", f, ref, {arr({{inf, -inf, qnan}}), arr({{0.0}}), arr({{1.0}})},
           {1e-13, 1e-6, 1e-6, false});
}

}  // namespace test_normal_lpdf
