// A population-level term of a categorical column with nearly one level per row (at least 10
// levels, at least half as many levels as rows) is a data error at FILE:1 suggesting a group term,
// unless data.allow_many_levels lists the column; group terms and numeric columns are not limited.
#include <doctest/doctest.h>

#include "models/design/many_levels.hpp"
#include "support/expect_error.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_many_levels {

using namespace bvi;
using models::design::Design;
using models::design::has_many_levels;

namespace {

// y ~ x + id, with `levels` levels of the text column id, and a grouping column g as (1 | g).
Design make(std::size_t levels) {
  spec::Config c;
  c.data.csv = "d.csv";
  c.data.response = "y";
  c.data.features = std::vector<std::string>{"x", "id"};
  spec::GroupConfig g;
  g.by = {"g"};
  c.model.groups = {g};
  Design d = models::design::plan_design(
      c, {"y", "x", "id", "g"},
      [](const std::vector<int>& cols) {
        std::vector<bool> text;
        for (int col : cols) text.push_back(col == 2);
        return text;
      },
      "d.csv:1");
  for (auto& v : d.variables) {
    if (v.name == "id")
      for (std::size_t l = 0; l < levels; ++l) v.levels.push_back("p" + std::to_string(l));
    if (v.name == "g")
      for (int l = 0; l < 100; ++l) v.levels.push_back("g" + std::to_string(l));  // a group: fine
  }
  return d;
}

}  // namespace

TEST_CASE("has_many_levels: at least 10 levels and at least half as many as rows") {
  CHECK(has_many_levels(10, 20));
  CHECK(has_many_levels(100, 100));
  CHECK_FALSE(has_many_levels(10, 21));
  CHECK_FALSE(has_many_levels(9, 9));  // few levels, however few rows
  CHECK_FALSE(has_many_levels(2, 4));
}

TEST_CASE("check_many_levels: refused with the way out, unless allowed") {
  test::expect_error([&] { models::design::check_many_levels(make(60), 100, {}, "d.csv"); }, ExitCode::data,
                     "d.csv:1",
                     "column 'id' has 60 levels in the 100 rows used, so the term 'id' would fit nearly one "
                     "coefficient per row (the column is categorical because some of its values are not "
                     "numbers): model an ID as a group term, (1 | id), or list the column in "
                     "/data/allow_many_levels if this is intended");
  CHECK_NOTHROW(models::design::check_many_levels(make(60), 100, {"id"}, "d.csv"));
  CHECK_NOTHROW(models::design::check_many_levels(make(49), 100, {}, "d.csv"));
  CHECK_NOTHROW(models::design::check_many_levels(make(3), 5, {}, "d.csv"));
}

}  // namespace test_many_levels
