#pragma once
// The model formula users know from lme4, brms and bambi, as a shorthand for the structured
// config (data.response, data.features, model.intercept, model.groups, data.offset, data.exposure):
//
//   y ~ x + z + x:z + (1 + x | g1) + (1 | g2)
//
//   formula  := NAME '~' rhs
//   rhs      := ['-'] part (('+' | '-') part)*
//   part     := '0' | '1' | 'offset(' NAME ')' | 'offset(log(' NAME '))' | '(' group ')' | product
//   group    := gpart (('+' | '-') gpart)* ('|' | '||') factor      gpart := '0' | '1' | product
//   factor   := atom ((':' | '/') atom)*
//   product  := inter ('*' inter)*          (a * b = a + b + a:b, every subset of the factors)
//   inter    := atom (':' atom)*            (an interaction; one atom is a main effect)
//   atom     := NAME | 'factor(' NAME ')'
//   NAME     := [A-Za-z_.][A-Za-z0-9_.]* or a `backquoted` column name
//
// offset(log(t)) names t as the exposure (data.exposure: log t added to eta), offset(z) the offset.
// factor(x) is the column x read as categories (data.categorical), wherever a column may stand.
// '0 +', '+ 0' and '- 1' drop the intercept ('1' keeps it, the default); inside a group term they
// drop the varying intercept. '||' makes the varying effects uncorrelated. '(x | a/b)' is
// '(x | a) + (x | a:b)': b nested in a, a:b the combined factor. A term is a set of columns
// (x:z is z:x); one written twice is an error, while repeats made by '*' are merged, as in R.
// This parser knows nothing of the data: which names are columns is checked when the data is
// read, and `formula_error` gives those errors the same shape.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace bvi::spec {

// A column name as written, and where: `column` is the 1-based character column in the formula.
struct FormulaName {
  std::string text;
  std::size_t column = 0;
};

// An interaction of one or more columns (one column: a main effect).
struct FormulaTerm {
  std::vector<FormulaName> columns;
  std::size_t column = 0;    // where the term starts
  std::string text() const;  // "x:z"
};

// A group-level term: varying intercept and slopes by a grouping factor (one or more columns,
// combined).
struct FormulaGroup {
  std::vector<FormulaName> by;
  bool intercept = true;
  std::vector<FormulaTerm> terms;
  bool correlated = true;
  std::size_t column = 0;  // its '('
};

struct FormulaAst {
  FormulaName response;
  bool intercept = true;
  std::vector<FormulaTerm> terms;  // population-level, in the order written (expansions in place)
  std::vector<FormulaGroup> groups;
  std::optional<FormulaName> offset;
  std::optional<FormulaName> exposure;  // offset(log(NAME))
  std::vector<FormulaName> factors;     // columns written factor(NAME), each once, in order
};

// Parses a formula. Every failure is an Error with ExitCode::config at "/model/formula", whose
// message is "col N: WHAT: EXCERPT" (see formula_error). Throws nothing else, for any input.
// The longest formula parse_formula takes, in characters.
inline constexpr std::size_t kMaxFormulaLength = 100000;
FormulaAst parse_formula(std::string_view text);

// The error for the formula `text` at 1-based `column`: "col N: WHAT: EXCERPT", the excerpt
// being the formula (cut to about 60 characters around the place) with '^' before the offending
// character; at "/model/formula", ExitCode::config.
Error formula_error(std::string_view text, std::size_t column, const std::string& what);

}  // namespace bvi::spec
