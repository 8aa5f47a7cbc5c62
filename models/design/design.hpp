#pragma once
// The design of a model: which columns it reads (variables, numeric or categorical), its
// population-level terms and group-level terms, and how each term becomes design columns.
//
// Coding follows R's model.matrix: a categorical variable in a term is coded by treatment
// contrasts (one indicator per level but the first, the reference) when the term without it is
// also in the model (the empty term being the intercept), and by one indicator per level
// otherwise. So `y ~ sex` has `sex[male]` beside the intercept, `y ~ 0 + sex` has `sex[female]`
// and `sex[male]`, and `y ~ x + x:sex` has `x` and `x:sex[male]` while `y ~ x:sex` has
// `x:sex[female]` and `x:sex[male]`. A term's columns are the products of its variables' columns,
// the first variable varying fastest (as R), named by joining `x` and `sex[male]` with ':'. In a
// group term the same rule holds with the group's own terms, its varying intercept being the
// empty term.
//
// The design is planned from the config and the header (plan_design), completed with the levels
// once the data is read (set_levels), written to the fit's summary and read back by predict
// (to_json / design_from_json).
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/spec/config.hpp"

namespace bvi::models::design {

// A population-level categorical term may make at most this many columns: beyond, it is a
// dense block of N x levels numbers that a group term (1 | factor) models better and cheaper.
inline constexpr std::size_t kMaxTermColumns = 1000;

struct Variable {
  std::string name;
  int column = -1;  // in the header
  bool categorical = false;
  // Its kind comes from its values (column_kinds.hpp): neither declared in data.categorical nor a
  // grouping column. Not saved: predict takes the kinds the fit settled as they are.
  bool kind_from_data = false;
  std::vector<std::string> levels;  // categorical: global, sorted (models/data/levels.hpp)
  // /data/reference_levels: the level settle_levels moves first (empty: none). Not saved: the
  // levels are, in their order.
  std::string reference_level;
  bool numeric_levels = false;      // levels sorted by value
  // Numeric: centre and scale when standardized (x - center) / scale; scale 0 = not standardized.
  double center = 0.0, scale = 0.0;
};

// One factor of a design column: a numeric variable's value, or the indicator of one level.
struct Factor {
  int variable = 0;
  int level = -1;  // -1: the variable's value
};

struct Column {
  std::string name;  // "x", "sex[male]", "x:sex[male]"
  std::vector<Factor> factors;
};

struct Term {
  std::string text;                     // "x:sex", as the config writes it
  std::vector<int> variables;           // in the order written
  std::vector<bool> full;               // per variable: one indicator per level (else contrasts)
  spec::NamePlace place;                // where it was written, for errors
  int first_column = 0, n_columns = 0;  // its columns (after set_levels)
};

struct Group {
  std::string label, ident;  // "school:class", "school_class"
  std::vector<int> by;       // variables whose level combinations are the groups
  bool intercept = true, correlated = true;
  std::vector<Term> terms;  // slopes
  std::vector<Column> slopes;
  std::vector<std::string> levels;  // the groups (set once the data is read; combined: "A:x")
  std::string pointer;
  std::size_t formula_column = 0;
  int effects() const { return (intercept ? 1 : 0) + static_cast<int>(slopes.size()); }
  // "(Intercept)", then the slope columns' names.
  std::vector<std::string> effect_names() const;
};

struct Design {
  std::vector<Variable> variables;
  bool intercept = false;
  std::vector<Term> terms;
  std::vector<Column> columns;  // population-level
  std::vector<Group> groups;
  std::string formula;  // the formula the model was written as, for errors (not saved)
  // The variables each role reads (indexes into `variables`), for reading the rows.
  std::vector<int> numeric_variables() const;
  std::vector<int> categorical_variables() const;
  std::vector<std::string> column_names() const;
  int find_variable(const std::string& name) const;
};

// " (did you mean 'X'?)" for a name the header lacks: the column that differs by case or spaces,
// else the nearest by edit distance; "" when none is close.
std::string column_hint(const std::string& name, const std::vector<std::string>& columns);

// A formula's names that are no column of the header: config error at the formula, at the name.
void check_formula_columns(const spec::ModelConfig& model, const std::vector<std::string>& columns);

// For the header columns asked (indexes), whether each one is to be read as text rather than
// numbers (models/design/column_kinds.hpp: a guess from its first value, then the settled kind).
using FirstValueIsText = std::function<std::vector<bool>(const std::vector<int>& columns)>;

// The variables and terms of `config` against the header `columns`. A variable is categorical
// when listed in data.categorical, when it is a grouping column, or when `is_text` says so (then
// its kind_from_data is set). Unknown columns: data error at `data_where` (FILE:1), or a config
// error at the formula's column when the model is a formula; a name in data.categorical or
// data.allow_many_levels that is no column: config error at its pointer.
Design plan_design(const spec::Config& config, const std::vector<std::string>& columns,
                   const FirstValueIsText& is_text, const std::string& data_where);

// Once every categorical variable has its levels: the terms' codings and columns, in order.
// Config errors: a population-level term with more than kMaxTermColumns columns.
void expand_columns(Design& design);

nlohmann::json to_json(const Design& design);
// Throws std::invalid_argument when `j` is not what to_json wrote.
Design design_from_json(const nlohmann::json& j);

}  // namespace bvi::models::design
