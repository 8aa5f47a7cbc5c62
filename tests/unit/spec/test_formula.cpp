// The formula parser: what each construct expands to (intercepts, '*', ':', nested '/', '||',
// offset, backquotes), and every malformed formula as a config error at /model/formula naming
// the column and showing the place; random token soup either parses or throws bvi::Error.
#include <doctest/doctest.h>

#include <random>

#include "common/error.hpp"
#include "models/spec/formula.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_formula {

using namespace bvi;
using spec::parse_formula;

namespace {

std::vector<std::string> term_texts(const std::vector<spec::FormulaTerm>& terms) {
  std::vector<std::string> out;
  for (const auto& t : terms) out.push_back(t.text());
  return out;
}

std::string by_text(const spec::FormulaGroup& g) {
  std::string s;
  for (const auto& c : g.by) s += (s.empty() ? "" : ":") + c.text;
  return s;
}

// The message of the error parse_formula throws (fails the test when it does not throw).
std::string error_of(const std::string& formula) {
  try {
    parse_formula(formula);
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::config);
    CHECK(e.where() == "/model/formula");
    return e.detail();
  }
  FAIL("no error for " << formula);
  return "";
}

}  // namespace

TEST_CASE("formula: population-level terms and the intercept") {
  auto f = parse_formula("y ~ x + z");
  CHECK(f.response.text == "y");
  CHECK(f.intercept);
  CHECK(term_texts(f.terms) == std::vector<std::string>{"x", "z"});
  CHECK(f.terms[1].column == 9);
  CHECK(!parse_formula("y ~ 0 + x").intercept);
  CHECK(!parse_formula("y ~ x - 1").intercept);
  CHECK(!parse_formula("y ~ -1 + x").intercept);
  CHECK(!parse_formula("y~x+0").intercept);
  CHECK(parse_formula("y ~ 1 + x").intercept);
  CHECK(parse_formula("y ~ 1").terms.empty());
  CHECK(term_texts(parse_formula("y ~ x:z").terms) == std::vector<std::string>{"x:z"});
  CHECK(term_texts(parse_formula("y ~ x*z").terms) == std::vector<std::string>{"x", "z", "x:z"});
  CHECK(term_texts(parse_formula("y ~ a*b*c").terms) ==
        std::vector<std::string>{"a", "b", "c", "a:b", "a:c", "b:c", "a:b:c"});
  // ':' binds tighter than '*': a*b:c = a + b:c + a:b:c.
  CHECK(term_texts(parse_formula("y ~ a*b:c").terms) == std::vector<std::string>{"a", "b:c", "a:b:c"});
  // Repeats made by '*' merge with written terms, in either order.
  CHECK(term_texts(parse_formula("y ~ x + x*z").terms) == std::vector<std::string>{"x", "z", "x:z"});
  CHECK(term_texts(parse_formula("y ~ x*z + z:x").terms) == std::vector<std::string>{"x", "z", "x:z"});
  // Names: dots and underscores, backquotes for anything else.
  auto q = parse_formula("log.y ~ `x 1` + _z + a.b");
  CHECK(q.response.text == "log.y");
  CHECK(term_texts(q.terms) == std::vector<std::string>{"x 1", "_z", "a.b"});
  auto o = parse_formula("y ~ x + offset(log_t)");
  REQUIRE(o.offset);
  CHECK(o.offset->text == "log_t");
  CHECK(term_texts(o.terms) == std::vector<std::string>{"x"});
  CHECK_FALSE(o.exposure);
  // offset(log(t)), as R users write an exposure: the column t is the exposure (its log the
  // offset); beside a plain offset() too.
  auto e = parse_formula("y ~ x + offset(log(t))");
  REQUIRE(e.exposure);
  CHECK(e.exposure->text == "t");
  CHECK(e.exposure->column == 20);
  CHECK_FALSE(e.offset);
  // factor(x): the column x, read as categories, wherever a column may stand; each once.
  auto fa = parse_formula("y ~ factor(cyl) + x:factor(g) + factor(cyl):x + (1 + factor(g) | factor(h))");
  CHECK(term_texts(fa.terms) == std::vector<std::string>{"cyl", "x:g", "cyl:x"});
  std::vector<std::string> factors;
  for (const auto& f : fa.factors) factors.push_back(f.text);
  CHECK(factors == std::vector<std::string>{"cyl", "g", "h"});
  REQUIRE(fa.groups.size() == 1);
  CHECK(by_text(fa.groups[0]) == "h");
  CHECK(fa.factors[0].column == 12);
  auto both = parse_formula("y ~ offset( log( `holders n` ) ) + x + offset(z)");
  REQUIRE(both.exposure);
  REQUIRE(both.offset);
  CHECK(both.exposure->text == "holders n");
  CHECK(both.offset->text == "z");
}

TEST_CASE("formula: group-level terms") {
  auto f = parse_formula("y ~ x + (1 + x | g1) + (1 | g2)");
  REQUIRE(f.groups.size() == 2);
  CHECK(by_text(f.groups[0]) == "g1");
  CHECK(f.groups[0].intercept);
  CHECK(f.groups[0].correlated);
  CHECK(term_texts(f.groups[0].terms) == std::vector<std::string>{"x"});
  CHECK(by_text(f.groups[1]) == "g2");
  CHECK(f.groups[1].terms.empty());
  auto u = parse_formula("y ~ (x || g)");
  CHECK(!u.groups[0].correlated);
  CHECK(u.groups[0].intercept);
  CHECK(u.terms.empty());
  CHECK(!parse_formula("y ~ (0 + x | g)").groups[0].intercept);
  CHECK(!parse_formula("y ~ (-1 + x | g)").groups[0].intercept);
  auto n = parse_formula("y ~ (1 | a/b)");
  REQUIRE(n.groups.size() == 2);
  CHECK(by_text(n.groups[0]) == "a");
  CHECK(by_text(n.groups[1]) == "a:b");
  auto n3 = parse_formula("y ~ (x | a/b/c)");
  REQUIRE(n3.groups.size() == 3);
  CHECK(by_text(n3.groups[2]) == "a:b:c");
  CHECK(term_texts(n3.groups[2].terms) == std::vector<std::string>{"x"});
  CHECK(by_text(parse_formula("y ~ (1 | a:b)").groups[0]) == "a:b");
  CHECK(term_texts(parse_formula("y ~ (x*z | g)").groups[0].terms) ==
        std::vector<std::string>{"x", "z", "x:z"});
  // Crossed factors.
  CHECK(parse_formula("y ~ (1 | a) + (1 | b)").groups.size() == 2);
}

TEST_CASE("formula: errors name the column and show the place") {
  CHECK(error_of("y ~ x + (1 | g") == "col 9: unbalanced '(': no ')' after it: y ~ x + ^(1 | g");
  CHECK(error_of("y ~ x)") == "col 6: unbalanced ')': no '(' before it: y ~ x^)");
  CHECK(error_of("y ~ x + + z").find("col 9: empty term") == 0);
  CHECK(error_of("y ~ x +").find("col 8: empty term") == 0);
  CHECK(error_of("y ~").find("col 4: empty term") == 0);
  CHECK(error_of("y ~ x | g") ==
        "col 7: '|' outside parentheses: a group term is written (terms | factor): y ~ x ^| g");
  CHECK(error_of("y ~ x + y").find("col 9: the response 'y' cannot also be a predictor") == 0);
  CHECK(error_of("y ~ (1 | y)").find("col 10: the response 'y' cannot also be a predictor") == 0);
  CHECK(error_of("y ~ x + z + x").find("col 13: duplicate term 'x' (already at col 5)") == 0);
  CHECK(error_of("y ~ x:z + z:x").find("col 11: duplicate term 'z:x' (already at col 5)") == 0);
  CHECK(error_of("y ~ x:x").find("appears twice in one interaction") != std::string::npos);
  CHECK(error_of("y ~ (1 | g) + (x | g)").find("col 20: grouping factor 'g' already has a term at col 5") ==
        0);
  CHECK(error_of("y ~ ( | g)").find("col 7: empty term before '|'") == 0);
  CHECK(error_of("y ~ (0 | g)").find("no effects") != std::string::npos);
  CHECK(error_of("y ~ (1 | )").find("col 10: expected the grouping factor's column") == 0);
  CHECK(error_of("y ~ (x)").find("needs '|'") != std::string::npos);
  CHECK(error_of("y ~ log(x)").find("col 5: functions are not supported") == 0);
  CHECK(error_of("y ~ x^2").find("'^'") != std::string::npos);
  CHECK(error_of("y ~ 2 + x").find("a number other than 0 or 1") != std::string::npos);
  CHECK(error_of("y ~ x - z").find("only '- 1'") != std::string::npos);
  CHECK(error_of("y ~ x z").find("col 7: expected '+' between terms") == 0);
  CHECK(error_of("~ x").find("col 1: no response before '~'") == 0);
  CHECK(error_of("y x").find("col 3: expected '~'") == 0);
  CHECK(error_of("").find("the formula is empty") != std::string::npos);
  CHECK(error_of("y ~ 0").find("no terms") != std::string::npos);
  CHECK(error_of("y ~ `x").find("unterminated backquoted name") != std::string::npos);
  CHECK(error_of("y ~ `a:b`").find("rename the column") != std::string::npos);
  CHECK(error_of("y ~ offset(t) + offset(u)").find("offset() given twice") != std::string::npos);
  CHECK(error_of("y ~ offset(log(t)) + offset(log(u))").find("offset(log()) given twice") !=
        std::string::npos);
  CHECK(error_of("y ~ offset(exp(t))").find("col 12: only log() inside offset()") == 0);
  CHECK(error_of("y ~ offset(log(t u))").find("log() takes one column name") != std::string::npos);
  CHECK(error_of("y ~ offset(log(t)").find("unbalanced '('") != std::string::npos);
  CHECK(error_of("y ~ offset(log(y))").find("the response") != std::string::npos);
  CHECK(error_of("y ~ factor(a b)").find("factor() takes one column name") != std::string::npos);
  CHECK(error_of("y ~ factor(a").find("col 11: unbalanced '('") == 0);
  CHECK(error_of("y ~ x:log(z)").find("col 7: functions are not supported") == 0);
  CHECK(error_of("y ~ (1 | exp(g))").find("col 10: functions are not supported") == 0);
  CHECK(error_of("y ~ factor(y)").find("the response") != std::string::npos);
  // What R and brms write on the left, and what it is here.
  CHECK(error_of(" cbind(s, f) ~ x").find("col 2: cbind(successes, failures) ~ ... is binomial_logit") == 0);
  CHECK(error_of("cbind (s, f) ~ x").find("col 1: cbind(successes, failures)") == 0);
  CHECK_NOTHROW(parse_formula("cbind ~ x"));  // a column named cbind
  CHECK(error_of("factor(y) ~ x")
            .find("col 1: the response is a column name, not a function: a response of "
                  "categories needs no factor()") == 0);
  CHECK(error_of("log(y) ~ x").find("col 1: the response is a column name, not a function") == 0);
  CHECK(error_of("y | trials(n) ~ x").find("col 3: brms's 'y | trials(n)'") == 0);
  CHECK(error_of("y ~ ((1 | g))").find("parentheses inside a group term") != std::string::npos);
  // A long formula is cut around the place.
  const std::string long_formula = "y ~ " + std::string(100, 'a') + " + (1 | g";
  const std::string msg = error_of(long_formula);
  CHECK(msg.find("...") != std::string::npos);
  CHECK(msg.size() < 160);
}

TEST_CASE("formula: random token soup parses or throws bvi::Error, nothing else") {
  const std::vector<std::string> pieces = {"y", "x", "z", "g",      "~",     "+", "-",  "*",
                                           ":", "/", "|", "||",     "(",     ")", "0",  "1",
                                           "2", " ", "`", "offset", "`a b`", "^", "\n", "\xc3\xa9"};
  std::mt19937 rng(7);
  int parsed = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string s = trial % 2 ? "y ~ " : "";
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) s += pieces[rng() % pieces.size()];
    try {
      parse_formula(s);
      ++parsed;
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::config);
    }
  }
  CHECK(parsed > 100);
}

}  // namespace test_formula
