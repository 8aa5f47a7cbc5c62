// What a model tells the natural-gradient rules about its coordinates: which ones are log or
// logit scales (their mean moves by at most 1 a step; an ordered block's first entry, the first
// cutpoint itself, is not one) and which log sd scales each group effect (its start).
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "models/model.hpp"
#include "support/model_fixtures.hpp"
#include "support/multilevel_fixture.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_step_bounds {

using namespace bvi;

namespace {

models::Model ordinal_model() {
  spec::ModelConfig c = test::logistic_config(false, {0.0}, {2.0});
  c.likelihood = "ordinal_logit";
  c.priors["cutpoints"] =
      test::simple_prior("cutpoints", "student_t", {{"df", 3.0}, {"loc", 0.0}, {"scale", 2.5}});
  c.priors["sd_g"] = test::simple_prior("sd_g", "half_normal", {{"scale", 1.0}});
  models::ModelShape shape = models::ModelShape::plain(test::feature_names(2));
  shape.groups.push_back({"g", "g", {"a", "b", "c"}, {"(Intercept)"}, true});
  shape.response_levels = 4;
  return models::Model::build(c, shape, {true});
}

std::map<std::string, Eigen::Index> columns(const models::Model& m) {
  std::map<std::string, Eigen::Index> out;
  const auto names = m.layout().column_names();
  for (std::size_t j = 0; j < names.size(); ++j) out[names[j]] = static_cast<Eigen::Index>(j);
  return out;
}

}  // namespace

TEST_CASE("max_mean_step: 1 on log scales and an ordered block's gaps, unbounded elsewhere") {
  const models::Model m = ordinal_model();
  auto col = columns(m);
  const Eigen::VectorXd bound = m.max_mean_step();
  REQUIRE(bound.size() == m.dim());
  CHECK(std::isinf(bound[col.at("beta.1")]));
  CHECK(std::isinf(bound[col.at("cutpoints.1")]));  // the first cutpoint itself
  CHECK(bound[col.at("cutpoints.2")] == 1.0);       // log of the gap to the first
  CHECK(bound[col.at("cutpoints.3")] == 1.0);
  CHECK(bound[col.at("sd_g.1")] == 1.0);  // log sd
  CHECK(std::isinf(bound[col.at("r_g.2.1")]));
}

TEST_CASE("group_scale_columns: each group effect points at its factor's log sd") {
  const models::Model m = ordinal_model();
  auto col = columns(m);
  const std::vector<Eigen::Index> scale = m.group_scale_columns();
  REQUIRE(static_cast<Eigen::Index>(scale.size()) == m.dim());
  for (const char* r : {"r_g.1.1", "r_g.2.1", "r_g.3.1"})
    CHECK(scale[static_cast<std::size_t>(col.at(r))] == col.at("sd_g.1"));
  for (const char* other : {"beta.1", "cutpoints.1", "sd_g.1"})
    CHECK(scale[static_cast<std::size_t>(col.at(other))] == -1);
}

}  // namespace test_step_bounds
