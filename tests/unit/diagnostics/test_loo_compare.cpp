// loo_compare and stacking weights against R's loo 2.5.1 (loo_compare, loo_model_weights) on the
// pointwise elpd_loo that R itself computed (tests/reference/loo_reference.R): the comparison is
// tested on R's inputs, not on ours.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <string>
#include <vector>

#include "inference/diagnostics/loo_compare.hpp"
#include "loo_reference_inputs.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_loo_compare {

using namespace bvi::diagnostics;
using loo_reference::close_relative;

Eigen::MatrixXd r_pointwise(const std::vector<std::string>& names) {
  const auto fx = loo_reference::fixture();
  Eigen::MatrixXd elpd(40, static_cast<Eigen::Index>(names.size()));
  for (std::size_t k = 0; k < names.size(); ++k)
    for (Eigen::Index i = 0; i < 40; ++i)
      elpd(i, static_cast<Eigen::Index>(k)) =
          fx["loo"][names[k]]["elpd_loo_i"][static_cast<std::size_t>(i)].get<double>();
  return elpd;
}

TEST_CASE("loo_compare: order, elpd_diff and se_diff equal R's loo_compare to 1e-8") {
  const auto fx = loo_reference::fixture();
  const auto& cmp = fx["compare"];
  // The input order c, a, b: the result must not depend on it.
  const std::vector<std::string> names = {"c", "a", "b"};
  const auto result = loo_compare(r_pointwise(names));
  REQUIRE(result.size() == 3);
  for (std::size_t r = 0; r < 3; ++r) {
    CAPTURE(r);
    CHECK(names[static_cast<std::size_t>(result[r].index)] == cmp["order"][r].get<std::string>());
    const double diff = cmp["elpd_diff"][r].get<double>(), se = cmp["se_diff"][r].get<double>();
    if (r == 0) {
      CHECK(result[r].elpd_diff == 0.0);
      CHECK(result[r].se_diff == 0.0);
    } else {
      CHECK(close_relative(result[r].elpd_diff, diff, 1e-8));
      CHECK(close_relative(result[r].se_diff, se, 1e-8));
    }
  }
}

TEST_CASE("loo_compare: equal models tie in input order; too few models are refused") {
  Eigen::MatrixXd e(3, 2);
  e << -1, -1, -2, -2, -3, -3;
  const auto r = loo_compare(e);
  CHECK(r[0].index == 0);
  CHECK(r[1].index == 1);
  CHECK(r[1].elpd_diff == 0.0);
  CHECK(r[1].se_diff == 0.0);
  CHECK_THROWS_AS(loo_compare(Eigen::MatrixXd(3, 1)), std::invalid_argument);
}

TEST_CASE("stacking weights equal the optimum of loo_model_weights' objective to 1e-6") {
  // R's constrOptim on loo's stacking objective with tight tolerances (the fixture explains why
  // loo_model_weights' own answer stops short); ours must match it, and be at least as good as
  // loo_model_weights' default answer, from which it may differ by its stopping error (~6e-5).
  const auto fx = loo_reference::fixture();
  const auto& cmp = fx["compare"];
  const Eigen::MatrixXd elpd = r_pointwise({"a", "b", "c"});
  const Eigen::VectorXd w = stacking_weights(elpd);
  for (Eigen::Index k = 0; k < 3; ++k) {
    CAPTURE(k);
    CHECK(std::abs(w[k] - cmp["stacking_weights_tight"][static_cast<std::size_t>(k)].get<double>()) <= 1e-6);
    CHECK(std::abs(w[k] - cmp["stacking_weights"][static_cast<std::size_t>(k)].get<double>()) <= 1e-4);
  }
  CHECK(w.sum() == doctest::Approx(1.0).epsilon(1e-14));
  double score = 0;
  for (Eigen::Index i = 0; i < elpd.rows(); ++i)
    score += std::log((elpd.row(i).array().exp().matrix() * w)(0));
  CHECK(score >= cmp["stacking_score_default"].get<double>());
  CHECK(score == doctest::Approx(cmp["stacking_score_tight"].get<double>()).epsilon(1e-13));
}

TEST_CASE("stacking weights: a model that only adds noise gets weight 0, a duplicate splits nothing new") {
  // Model 1 predicts every row better than model 0 by the same factor: all weight on model 1 (the
  // score sum_i log(w0 e^a_i + w1 e^(a_i + 1)) grows with w1).
  Eigen::MatrixXd e(5, 2);
  for (int i = 0; i < 5; ++i) {
    e(i, 0) = -1.0 - 0.1 * i;
    e(i, 1) = e(i, 0) + 1.0;
  }
  const Eigen::VectorXd w = stacking_weights(e);
  CHECK(w[0] < 1e-8);
  CHECK(w[1] == doctest::Approx(1.0).epsilon(1e-8));
  // Two models each best on half the rows by the same margin: equal weights (symmetry).
  Eigen::MatrixXd h(4, 2);
  h << -1, -3, -3, -1, -1, -3, -3, -1;
  const Eigen::VectorXd v = stacking_weights(h);
  CHECK(v[0] == doctest::Approx(0.5).epsilon(1e-12));
}

}  // namespace test_loo_compare
