// The constraint transforms: values and log-Jacobians against the closed forms, and the gradient
// of sum(w .* x) + sum(v .* log J) against central differences for every kind of bound.
#include <cmath>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_constrain {

using namespace bvi;
using bvi::test::arr;

namespace {

double sigmoid(double u) { return 1.0 / (1.0 + std::exp(-u)); }

const std::vector<ad::ColumnTransform> kTransforms = {
    {ad::Bound::none, 0, 0},       {ad::Bound::lower, 0, 0},     {ad::Bound::lower, -2.5, 0},
    {ad::Bound::upper, 0, 1.5},    {ad::Bound::interval, 0, 1},  {ad::Bound::interval, -3, 7},
};

// x and log J written from the definitions.
double ref_x(const ad::ColumnTransform& t, double u) {
  switch (t.bound) {
    case ad::Bound::none: return u;
    case ad::Bound::lower: return t.lower + std::exp(u);
    case ad::Bound::upper: return t.upper - std::exp(u);
    case ad::Bound::interval: return t.lower + (t.upper - t.lower) * sigmoid(u);
    case ad::Bound::cholesky_corr:
    case ad::Bound::ordered:
      break;  // test_cholesky_corr.cpp, test_ordered_transform.cpp
  }
  return 0;
}
double ref_log_jacobian(const ad::ColumnTransform& t, double u) {
  switch (t.bound) {
    case ad::Bound::none: return 0;
    case ad::Bound::lower:
    case ad::Bound::upper: return std::log(std::exp(u));  // |dx/du| = e^u
    case ad::Bound::interval: return std::log((t.upper - t.lower) * sigmoid(u) * (1 - sigmoid(u)));
    case ad::Bound::cholesky_corr:
    case ad::Bound::ordered:
      break;
  }
  return 0;
}

}  // namespace

TEST_CASE("constraint transforms: values, log-Jacobian and gradients") {
  const Eigen::ArrayXXd u = arr({{0.3, -1.2, 2.5, 0.1, -0.7, 1.9}, {1.1, 0.4, -3.0, -2.2, 3.5, -0.2}});
  // Output: [x (S x P), log J (S x 1)] side by side, so one check covers both and their sum.
  auto f = [](ad::Tape& tape, const std::vector<ad::Var>& v) {
    ad::Constrained c = ad::constrain(v[0], kTransforms);
    // x weighted by w, plus log J: sum over columns of x, then log J added per row.
    return ad::add(ad::row_sums(c.x), ad::multiply(c.log_jacobian, tape.constant(3.0)));
  };
  auto r = [](const test::Arrays& x) {
    Eigen::ArrayXXd out = Eigen::ArrayXXd::Zero(x[0].rows(), 1);
    for (Eigen::Index s = 0; s < x[0].rows(); ++s)
      for (Eigen::Index j = 0; j < x[0].cols(); ++j)
        out(s, 0) += ref_x(kTransforms[j], x[0](s, j)) + 3.0 * ref_log_jacobian(kTransforms[j], x[0](s, j));
    return out;
  };
  test::check_op("constrain", f, r, {u}, {1e-12, 1e-6, 1e-6, true});

  ad::Tape tape;
  ad::Constrained c = ad::constrain(tape.constant(u.data(), 2, 6), kTransforms);
  for (Eigen::Index s = 0; s < 2; ++s)
    for (Eigen::Index j = 0; j < 6; ++j) CHECK(c.x.val()(s, j) == doctest::Approx(ref_x(kTransforms[j], u(s, j))));
  Eigen::MatrixXd values(2, 6);
  ad::constrain_values(u.matrix(), kTransforms, values);
  CHECK((values.array() - c.x.val()).abs().maxCoeff() == 0.0);
  // Ranges: positive is > 0, the interval stays inside, also far out.
  const Eigen::ArrayXXd far = arr({{40.0, -40.0, 40.0, -40.0, 40.0, -40.0}});
  Eigen::MatrixXd y(1, 6);
  ad::constrain_values(far.matrix(), kTransforms, y);
  CHECK(y(0, 1) == 0.0 + std::exp(-40.0));
  CHECK(y(0, 4) <= 1.0);
  CHECK(y(0, 5) >= -3.0);
}

}  // namespace test_constrain
