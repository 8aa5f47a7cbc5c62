// Terms to design columns with R's coding: contrasts when the term without a categorical variable
// is empty or within a preceding term (terms by degree), indicators otherwise, and indicators for
// the first categorical variable without an intercept; column names and order (the first variable
// varying fastest); a group term's slopes coded against its own
// intercept; kinds as is_text says; too many levels for a population-level term.
#include <doctest/doctest.h>

#include "common/error.hpp"
#include "models/design/design.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_design {

using namespace bvi;
using models::design::Design;

namespace {

const std::vector<std::string> kHeader = {"y", "x", "sex", "region", "g"};

Design make(const std::vector<std::string>& features, bool intercept,
            std::vector<spec::GroupConfig> groups = {}, const std::string& likelihood = "bernoulli_logit") {
  spec::Config c;
  c.model.likelihood = likelihood;
  c.data.csv = "d.csv";
  c.data.response = "y";
  c.data.features = features;
  c.model.intercept = intercept;
  c.model.groups = std::move(groups);
  // x is numeric; sex, region and g hold text.
  Design d = models::design::plan_design(
      c, kHeader,
      [](const std::vector<int>& cols) {
        std::vector<bool> text;
        for (int col : cols) text.push_back(col >= 2);
        return text;
      },
      "d.csv:1");
  for (auto& v : d.variables) {
    if (v.name == "sex") v.levels = {"f", "m"};
    if (v.name == "region") v.levels = {"e", "n", "s"};
    if (v.name == "g") v.levels = {"g1", "g2"};
  }
  models::design::expand_columns(d);
  return d;
}

}  // namespace

TEST_CASE("design: R's coding and names") {
  using V = std::vector<std::string>;
  CHECK(make({"sex"}, true).column_names() == V{"sex[m]"});
  CHECK(make({"sex"}, false).column_names() == V{"sex[f]", "sex[m]"});
  CHECK(make({"x", "x:sex"}, true).column_names() == V{"x", "x:sex[m]"});
  CHECK(make({"x:sex"}, true).column_names() == V{"x:sex[f]", "x:sex[m]"});
  CHECK(make({"sex", "sex:region"}, true).column_names() ==
        V{"sex[m]", "sex[f]:region[n]", "sex[m]:region[n]", "sex[f]:region[s]", "sex[m]:region[s]"});
  CHECK(make({"sex:region"}, true).column_names() == V{"sex[f]:region[e]", "sex[m]:region[e]",
                                                       "sex[f]:region[n]", "sex[m]:region[n]",
                                                       "sex[f]:region[s]", "sex[m]:region[s]"});
  CHECK(make({"sex", "region", "sex:region"}, false).column_names() ==
        V{"sex[f]", "sex[m]", "region[n]", "region[s]", "sex[m]:region[n]", "sex[m]:region[s]"});
  // Terms by degree, as R orders them; without an intercept the first categorical main effect
  // (not the first term) takes every level.
  CHECK(make({"x:sex", "sex"}, true).column_names() == V{"sex[m]", "x:sex[f]", "x:sex[m]"});
  CHECK(make({"x", "sex", "region"}, false).column_names() ==
        V{"x", "sex[f]", "sex[m]", "region[n]", "region[s]"});
  const Design d = make({"x", "sex"}, true);
  CHECK(d.terms[1].first_column == 1);
  CHECK(d.terms[1].n_columns == 1);
  CHECK_FALSE(d.variables[0].categorical);
  CHECK(d.variables[1].categorical);
}

// The cutpoints of an ordinal model are its intercept (polr and brms's cumulative code the design
// with one and drop its column): every level of a factor beside them would leave one direction
// of the cutpoints and the factor's coefficients unidentified.
TEST_CASE("design: an ordinal model codes factors against its cutpoints") {
  using V = std::vector<std::string>;
  for (const char* likelihood : {"ordinal_logit", "ordinal_probit"}) {
    CAPTURE(likelihood);
    CHECK(make({"sex"}, false, {}, likelihood).column_names() == V{"sex[m]"});
    CHECK(make({"x", "sex", "region"}, false, {}, likelihood).column_names() ==
          V{"x", "sex[m]", "region[n]", "region[s]"});
    CHECK(make({"x:sex"}, false, {}, likelihood).column_names() == V{"x:sex[f]", "x:sex[m]"});
  }
  CHECK(make({"sex"}, false, {}, "categorical_logit").column_names() == V{"sex[f]", "sex[m]"});
}

TEST_CASE("design: group terms") {
  spec::GroupConfig g;
  g.by = {"g"};
  g.label = g.ident = "g";
  g.terms = {"sex"};
  g.pointer = "/model/groups/0";
  Design d = make({"x"}, true, {g});
  REQUIRE(d.groups.size() == 1);
  CHECK(d.groups[0].effect_names() == std::vector<std::string>{"(Intercept)", "sex[m]"});
  g.intercept = false;
  d = make({"x"}, true, {g});
  CHECK(d.groups[0].effect_names() == std::vector<std::string>{"sex[f]", "sex[m]"});
  // A grouping column is categorical whatever its first value.
  CHECK(d.variables[static_cast<std::size_t>(d.groups[0].by[0])].categorical);
}

TEST_CASE("design: unknown columns and too many levels") {
  bool threw = false;
  try {
    make({"xx"}, true);
  } catch (const Error& e) {
    threw = true;
    CHECK(e.code() == ExitCode::data);
    CHECK(e.where() == "d.csv:1");
    CHECK(e.detail() == "feature column 'xx' is not in the header (did you mean 'x'?)");
  }
  CHECK(threw);
  spec::Config c;
  c.data.csv = "d.csv";
  c.data.response = "y";
  c.data.features = std::vector<std::string>{"g"};
  Design d = models::design::plan_design(
      c, kHeader, [](const std::vector<int>& cols) { return std::vector<bool>(cols.size(), true); },
      "d.csv:1");
  for (int i = 0; i < 1002; ++i) d.variables[0].levels.push_back("l" + std::to_string(i));
  CHECK_THROWS_AS(models::design::expand_columns(d), Error);
}

}  // namespace test_design
