// Priors at the feature means (PriorTerm::centered): categorical_logit's intercepts each on
// alpha.k + means . beta.k, in the closed-form prior expectation (ExpectedPrior, what the Monte
// Carlo sparse step and the exact method take) as in the log density; the ordinal cutpoints' on
// c_k - means . beta, which only the sampled path takes. The reference densities are written out
// here (student_t and normal log densities by hand).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <stdexcept>

#include "inference/exact/expected_log_density.hpp"
#include "models/expected_prior.hpp"
#include "models/model.hpp"
#include "support/model_fixtures.hpp"
#include "support/multilevel_fixture.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_centered_priors {

using namespace bvi;
using Eigen::Index;

namespace {

double student_t_lpdf(double x, double df, double loc, double scale) {
  const double z = (x - loc) / scale;
  return std::lgamma(0.5 * (df + 1)) - std::lgamma(0.5 * df) - 0.5 * std::log(df * M_PI) - std::log(scale) -
         0.5 * (df + 1) * std::log1p(z * z / df);
}

double normal_lpdf(double x, double sd) { return -0.5 * std::log(2 * M_PI) - std::log(sd) - 0.5 * (x / sd) * (x / sd); }

}  // namespace

TEST_CASE("categorical_logit: every intercept's centered prior is on alpha.k + means . beta.k in the expectation") {
  constexpr int K = 4;  // three non-reference categories
  spec::ModelConfig c = test::logistic_config(true, {0.0}, {2.0});
  c.likelihood = "categorical_logit";
  c.categories = K;
  c.priors["alpha"] = test::simple_prior("alpha", "student_t", {{"df", 3.0}, {"loc", 0.5}, {"scale", 2.5}});
  c.alpha_prior_centered = true;
  models::ModelShape shape = models::ModelShape::plain({"x1", "x2"});
  shape.response_levels = K;
  shape.column_means = (Eigen::VectorXd(2) << 30.0, -4.0).finished();
  const models::Model model = models::Model::build(c, shape, {true});
  const auto names = model.layout().column_names();
  const Index P = model.dim();
  REQUIRE(P == 3 * 3);

  // q: a point mass, nearly (sds 1e-6), at values set by name; E_q log p is then log p there.
  std::map<std::string, double> value;
  for (int k = 2; k <= K; ++k) {
    value["alpha." + std::to_string(k)] = 0.3 * k - 1.0;
    for (int j = 1; j <= 2; ++j) value["beta." + std::to_string(k) + "." + std::to_string(j)] = 0.05 * k - 0.1 * j;
  }
  vi::GaussianQ q;
  q.mean.resize(P);
  q.sd = Eigen::VectorXd::Constant(P, 1e-6);
  for (Index i = 0; i < P; ++i) q.mean[i] = value.at(names[static_cast<std::size_t>(i)]);

  double want = 0;
  for (int k = 2; k <= K; ++k) {
    const std::string s = std::to_string(k);
    const double b1 = value.at("beta." + s + ".1"), b2 = value.at("beta." + s + ".2");
    want += student_t_lpdf(value.at("alpha." + s) + 30.0 * b1 - 4.0 * b2, 3.0, 0.5, 2.5);
    want += normal_lpdf(b1, 2.0) + normal_lpdf(b2, 2.0);
  }
  models::ExpectedPrior prior(model, 1);
  CHECK(prior.evaluate(q, nullptr) == doctest::Approx(want).epsilon(1e-9));
  // One report entry for alpha, however many categories.
  int alpha_entries = 0;
  for (const auto& [name, how] : prior.methods()) alpha_entries += name == "alpha" ? 1 : 0;
  CHECK(alpha_entries == 1);
}

TEST_CASE("ordinal cutpoints: a centered prior is on c_k - means . beta, sampled with the likelihood only") {
  spec::ModelConfig c = test::logistic_config(false, {0.0}, {2.0});
  c.likelihood = "ordinal_logit";
  c.priors["cutpoints"] = test::simple_prior("cutpoints", "student_t", {{"df", 3.0}, {"loc", 0.0}, {"scale", 2.5}});
  c.cutpoints_prior_centered = true;
  models::ModelShape shape = models::ModelShape::plain({"x1", "x2"});
  shape.response_levels = 4;
  shape.column_means = (Eigen::VectorXd(2) << 30.0, -4.0).finished();
  const models::Model model = models::Model::build(c, shape, {true});
  const std::vector<std::size_t> block = model.block_prior_terms();
  REQUIRE(block.size() == 1);
  const models::PriorTerm& t = model.prior_terms()[block[0]];
  CHECK(t.centered);
  REQUIRE(t.centered_matrix.rows() == 2);
  REQUIRE(t.centered_matrix.cols() == 3);
  for (Index k = 0; k < 3; ++k) {
    CHECK(t.centered_matrix(0, k) == -30.0);
    CHECK(t.centered_matrix(1, k) == 4.0);
  }
  // The closed form takes it only when it is sampled with the likelihood (left out).
  CHECK_THROWS_AS(models::ExpectedPrior(model, 1), std::logic_error);
  CHECK_NOTHROW(models::ExpectedPrior(model, 1, 2000, block));
  // Without the flag the term is on the cutpoints themselves.
  c.cutpoints_prior_centered = false;
  const models::Model plain = models::Model::build(c, shape, {true});
  CHECK_FALSE(plain.prior_terms()[plain.block_prior_terms()[0]].centered);
}

}  // namespace test_centered_priors
