// The op checker itself must fail when an op is wrong: a value off the reference, or a gradient
// off the reference's central differences (the reference below has exp's values at the point
// but twice its slope). doctest counts a should_fail case as passed only if it fails.
#include <cmath>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_ad_check {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
const Eigen::ArrayXXd kPoint = arr({{0.3, -1.2}, {2.0, 0.5}});
auto exp_op = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::exp(v[0]); };
}  // namespace

TEST_CASE("check_op: a wrong value fails" * doctest::should_fail()) {
  check_op("exp vs exp + 1e-9", exp_op, [](const test::Arrays& x) { return x[0].exp() + 1e-9; }, {kPoint});
}

TEST_CASE("check_op: a wrong gradient fails" * doctest::should_fail()) {
  // Same values as exp at kPoint, slope 2 e^x there.
  auto ref = [](const test::Arrays& x) { return kPoint.exp() + 2.0 * (x[0] - kPoint) * kPoint.exp(); };
  check_op("exp vs a steeper reference", exp_op, ref, {kPoint});
}

TEST_CASE("check_op: the same op against its own formula passes") {
  check_op("exp", exp_op, [](const test::Arrays& x) { return x[0].exp(); }, {kPoint});
}

}  // namespace test_ad_check
