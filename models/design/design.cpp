#include "models/design/design.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "common/error.hpp"
#include "models/data/text_excerpt.hpp"
#include "models/spec/formula.hpp"
#include "models/spec/schema.hpp"
#include "models/spec/term_names.hpp"

namespace bvi::models::design {

namespace {

std::string fold(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A missing name is usually there with other case or padding, or misspelt.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& columns) {
  for (const std::string& c : columns)
    if (fold(c) == fold(name)) return " (did you mean " + data::quoted_excerpt(c) + "?)";
  const std::string hint = spec::suggest(name, columns);
  return hint.empty() ? "" : " (did you mean " + data::quoted_excerpt(hint) + "?)";
}

// R's rule (model.matrix; Chambers & Hastie 1992, p. 38): terms in order of degree (main effects,
// then two-way interactions, ..., each group in the order written), and a categorical variable
// of a term coded by contrasts when the term without it is empty or is contained in a preceding
// term, by indicators otherwise; without an intercept, the first categorical variable of the
// first term that has one is coded by indicators.
void choose_coding(std::vector<Term>& terms, bool intercept, const std::vector<Variable>& vars) {
  std::stable_sort(terms.begin(), terms.end(),
                   [](const Term& a, const Term& b) { return a.variables.size() < b.variables.size(); });
  std::vector<std::set<int>> sets;
  for (const auto& t : terms) sets.emplace_back(t.variables.begin(), t.variables.end());
  auto categorical = [&](int v) { return vars[static_cast<std::size_t>(v)].categorical; };
  for (std::size_t i = 0; i < terms.size(); ++i) {
    Term& t = terms[i];
    t.full.assign(t.variables.size(), false);
    for (std::size_t k = 0; k < t.variables.size(); ++k) {
      if (!categorical(t.variables[k])) continue;
      std::set<int> rest = sets[i];
      rest.erase(t.variables[k]);
      bool margin = rest.empty();
      for (std::size_t j = 0; j < i && !margin; ++j)
        margin = std::includes(sets[j].begin(), sets[j].end(), rest.begin(), rest.end());
      t.full[k] = !margin;
    }
  }
  if (intercept) return;
  for (Term& t : terms) {
    int first = -1;
    for (std::size_t k = 0; k < t.variables.size(); ++k)
      if (categorical(t.variables[k]) &&
          (first < 0 || t.variables[k] < t.variables[static_cast<std::size_t>(first)]))
        first = static_cast<int>(k);
    if (first >= 0) {
      t.full[static_cast<std::size_t>(first)] = true;
      return;
    }
  }
}

// The columns of one term: products of its variables' columns, the first varying fastest.
std::vector<Column> term_columns(const Term& t, const std::vector<Variable>& vars) {
  std::vector<Column> cols{Column{}};
  for (std::size_t k = 0; k < t.variables.size(); ++k) {
    const Variable& v = vars[static_cast<std::size_t>(t.variables[k])];
    std::vector<std::pair<std::string, Factor>> parts;
    if (!v.categorical) {
      parts.push_back({v.name, {t.variables[k], -1}});
    } else {
      for (std::size_t l = t.full[k] ? 0 : 1; l < v.levels.size(); ++l)
        parts.push_back({v.name + "[" + v.levels[l] + "]", {t.variables[k], static_cast<int>(l)}});
    }
    std::vector<Column> next;
    for (const auto& [name, factor] : parts)  // this variable varies slower than the earlier ones
      for (const Column& c : cols) {
        Column n = c;
        n.name += (n.name.empty() ? "" : ":") + name;
        n.factors.push_back(factor);
        next.push_back(std::move(n));
      }
    cols = std::move(next);
  }
  return cols;
}

}  // namespace

std::string column_hint(const std::string& name, const std::vector<std::string>& columns) {
  return did_you_mean(name, columns);
}

void check_formula_columns(const spec::ModelConfig& model, const std::vector<std::string>& columns) {
  if (model.formula.empty()) return;
  // In the order they are written, so the first unknown name is the one reported.
  std::vector<std::pair<std::size_t, std::string>> names;
  for (const auto& [name, column] : model.formula_columns) names.push_back({column, name});
  std::sort(names.begin(), names.end());
  for (const auto& [column, name] : names)
    if (std::find(columns.begin(), columns.end(), name) == columns.end())
      throw spec::formula_error(model.formula, column, "unknown column '" + name + "'" + did_you_mean(name, columns));
}

std::vector<std::string> Group::effect_names() const {
  std::vector<std::string> out;
  if (intercept) out.push_back("(Intercept)");
  for (const auto& s : slopes) out.push_back(s.name);
  return out;
}

std::vector<int> Design::numeric_variables() const {
  std::vector<int> out;
  for (std::size_t i = 0; i < variables.size(); ++i)
    if (!variables[i].categorical) out.push_back(static_cast<int>(i));
  return out;
}

std::vector<int> Design::categorical_variables() const {
  std::vector<int> out;
  for (std::size_t i = 0; i < variables.size(); ++i)
    if (variables[i].categorical) out.push_back(static_cast<int>(i));
  return out;
}

std::vector<std::string> Design::column_names() const {
  std::vector<std::string> out;
  for (const auto& c : columns) out.push_back(c.name);
  return out;
}

int Design::find_variable(const std::string& name) const {
  for (std::size_t i = 0; i < variables.size(); ++i)
    if (variables[i].name == name) return static_cast<int>(i);
  return -1;
}

Design plan_design(const spec::Config& config, const std::vector<std::string>& columns,
                   const FirstValueIsText& is_text, const std::string& data_where) {
  const spec::ModelConfig& m = config.model;
  const bool formula = !m.formula.empty();
  std::unordered_map<std::string, int> where;
  std::unordered_map<std::string, int> count;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    where.emplace(columns[i], static_cast<int>(i));
    ++count[columns[i]];
  }
  Design d;
  d.intercept = m.intercept;
  d.formula = m.formula;
  std::set<std::string> declared(config.data.categorical.begin(), config.data.categorical.end());
  std::set<std::string> grouping;
  for (const auto& g : m.groups) grouping.insert(g.by.begin(), g.by.end());
  for (const auto& [key, names] : {std::pair{"categorical", &config.data.categorical},
                                   std::pair{"allow_many_levels", &config.data.allow_many_levels}})
    for (std::size_t i = 0; i < names->size(); ++i) {
      const std::string& name = (*names)[i];
      if (!where.count(name))
        throw config_error("/data/" + std::string(key) + "/" + std::to_string(i),
                           "no column '" + name + "' in " + config.data.csv + did_you_mean(name, columns));
    }
  for (const auto& [name, level] : config.data.reference_levels)
    if (!where.count(name))
      throw config_error(spec::child_pointer("/data/reference_levels", name),
                         "no column '" + name + "' in " + config.data.csv + did_you_mean(name, columns));

  // A name of the model as a variable; `role` and `place` for the errors.
  auto variable = [&](const std::string& name, const std::string& role, const spec::NamePlace& place) {
    const int existing = d.find_variable(name);
    if (existing >= 0) return existing;
    const auto it = where.find(name);
    if (it == where.end() || count[name] > 1) {
      const std::string what = it == where.end()
                                   ? "unknown column '" + name + "'" + did_you_mean(name, columns)
                                   : "column '" + name + "' appears " + std::to_string(count[name]) +
                                         " times in the header of " + config.data.csv;
      if (formula) {
        const auto col = m.formula_columns.find(name);
        throw spec::formula_error(m.formula,
                                  col == m.formula_columns.end() ? place.formula_column : col->second, what);
      }
      if (it == where.end())
        throw data_error(data_where, role + " column " + data::quoted_excerpt(name) +
                                         " is not in the header" + did_you_mean(name, columns));
      throw data_error(data_where, what);
    }
    Variable v;
    v.name = name;
    v.column = it->second;
    v.categorical = declared.count(name) || grouping.count(name);
    d.variables.push_back(std::move(v));
    return static_cast<int>(d.variables.size()) - 1;
  };
  auto make_term = [&](const std::string& text, const spec::NamePlace& place, const std::string& role) {
    Term t;
    t.text = text;
    t.place = place;
    for (const auto& c : spec::term_columns(text, place.pointer))
      t.variables.push_back(variable(c, role, place));
    return t;
  };

  // Population-level terms: as given, or by default every column the model does not use
  // otherwise, in file order.
  if (config.data.features) {
    for (std::size_t i = 0; i < config.data.features->size(); ++i) {
      const spec::NamePlace place = i < m.feature_places.size()
                                        ? m.feature_places[i]
                                        : spec::NamePlace{"/data/features/" + std::to_string(i), 0};
      d.terms.push_back(make_term((*config.data.features)[i], place, "feature"));
    }
  } else {
    std::set<std::string> taken = grouping;
    taken.insert(config.data.response);
    for (const auto& extra : {config.data.trials, config.data.offset, config.data.exposure, config.data.weights})
      if (extra) taken.insert(*extra);
    for (const auto& name : columns)
      if (!taken.count(name)) d.terms.push_back(make_term(name, {"/data/features", 0}, "feature"));
  }

  for (const auto& g : m.groups) {
    Group G;
    G.label = g.label;
    G.ident = g.ident;
    G.intercept = g.intercept;
    G.correlated = g.correlated;
    G.pointer = g.pointer;
    G.formula_column = g.formula_column;
    for (std::size_t k = 0; k < g.by.size(); ++k)
      G.by.push_back(
          variable(g.by[k], "grouping", {g.pointer + "/by/" + std::to_string(k), g.formula_column}));
    for (std::size_t k = 0; k < g.terms.size(); ++k)
      G.terms.push_back(
          make_term(g.terms[k], {g.pointer + "/terms/" + std::to_string(k), g.formula_column}, "slope"));
    d.groups.push_back(std::move(G));
  }
  // The kinds of the variables that are not categorical by the config: from their values.
  std::vector<int> ask, which;
  for (std::size_t i = 0; i < d.variables.size(); ++i)
    if (!d.variables[i].categorical) {
      ask.push_back(d.variables[i].column);
      which.push_back(static_cast<int>(i));
    }
  if (!ask.empty()) {
    const std::vector<bool> text = is_text(ask);
    for (std::size_t k = 0; k < which.size(); ++k) {
      Variable& v = d.variables[static_cast<std::size_t>(which[k])];
      v.categorical = text[k];
      v.kind_from_data = true;
    }
  }
  // An ordinal model's cutpoints are its intercept: its factors are coded by contrasts against them,
  // as polr and brms code the design with an intercept and drop that column.
  choose_coding(d.terms, d.intercept || spec::has_cutpoints(m.likelihood), d.variables);
  for (Group& G : d.groups) choose_coding(G.terms, G.intercept, d.variables);
  // Whether the column is categorical is judged once all its values are read (settle_levels refuses
  // a numeric one): every variable not categorical by the config has its kind from its values, and
  // the first of them is only a guess.
  for (const auto& [name, level] : config.data.reference_levels) {
    const int v = d.find_variable(name);
    if (v < 0)
      throw config_error(spec::child_pointer("/data/reference_levels", name),
                         "'" + name + "' is " +
                             (name == config.data.response
                                  ? "the response; a reference level applies to a categorical predictor "
                                    "(a response's labels are ordered by /data/levels)"
                                  : "not a column of the model; a reference level applies to a categorical "
                                    "variable of the model"));
    d.variables[static_cast<std::size_t>(v)].reference_level = level;
  }
  return d;
}

void expand_columns(Design& d) {
  d.columns.clear();
  for (Term& t : d.terms) {
    const auto cols = term_columns(t, d.variables);
    const bool categorical = std::any_of(t.variables.begin(), t.variables.end(), [&](int v) {
      return d.variables[static_cast<std::size_t>(v)].categorical;
    });
    if (categorical && cols.size() > kMaxTermColumns) {
      const std::string what = "the term '" + t.text + "' makes " + std::to_string(cols.size()) +
                               " coefficients (more than " + std::to_string(kMaxTermColumns) +
                               "): model a categorical column with many levels as a group term, (1 | column)";
      if (!d.formula.empty()) throw spec::formula_error(d.formula, t.place.formula_column, what);
      throw config_error(t.place.pointer, what);
    }
    t.first_column = static_cast<int>(d.columns.size());
    t.n_columns = static_cast<int>(cols.size());
    d.columns.insert(d.columns.end(), cols.begin(), cols.end());
  }
  for (Group& g : d.groups) {
    g.slopes.clear();
    for (Term& t : g.terms) {
      const auto cols = term_columns(t, d.variables);
      if (cols.size() > kMaxTermColumns)
        throw config_error(t.place.pointer,
                           "the slope term '" + t.text + "' makes " + std::to_string(cols.size()) +
                               " effects per group (more than " + std::to_string(kMaxTermColumns) + ")");
      t.first_column = static_cast<int>(g.slopes.size());
      t.n_columns = static_cast<int>(cols.size());
      g.slopes.insert(g.slopes.end(), cols.begin(), cols.end());
    }
  }
}

namespace {

using Json = nlohmann::json;

Json term_json(const Term& t) {
  return Json{{"term", t.text}, {"variables", t.variables}, {"full", t.full}};
}

Term term_from(const Json& j) {
  Term t;
  t.text = j.at("term").get<std::string>();
  t.variables = j.at("variables").get<std::vector<int>>();
  t.full = j.at("full").get<std::vector<bool>>();
  return t;
}

}  // namespace

Json to_json(const Design& d) {
  Json vars = Json::array();
  for (const auto& v : d.variables) {
    Json j{{"name", v.name}, {"kind", v.categorical ? "categorical" : "numeric"}};
    if (v.categorical) {
      j["levels"] = v.levels;
      j["level_order"] = v.numeric_levels ? "numeric" : "bytes";
    } else if (v.scale > 0) {
      j["center"] = v.center;
      j["scale"] = v.scale;
    }
    vars.push_back(std::move(j));
  }
  Json terms = Json::array();
  for (const auto& t : d.terms) terms.push_back(term_json(t));
  Json groups = Json::array();
  for (const auto& g : d.groups) {
    Json gt = Json::array();
    for (const auto& t : g.terms) gt.push_back(term_json(t));
    groups.push_back(Json{{"factor", g.label},
                          {"ident", g.ident},
                          {"by", g.by},
                          {"intercept", g.intercept},
                          {"correlated", g.correlated},
                          {"terms", gt},
                          {"effects", g.effect_names()},
                          {"levels", g.levels}});
  }
  return Json{{"intercept", d.intercept}, {"variables", vars}, {"terms", terms}, {"groups", groups}};
}

Design design_from_json(const Json& j) {
  try {
    Design d;
    d.intercept = j.at("intercept").get<bool>();
    for (const auto& jv : j.at("variables")) {
      Variable v;
      v.name = jv.at("name").get<std::string>();
      v.categorical = jv.at("kind").get<std::string>() == "categorical";
      if (v.categorical) {
        v.levels = jv.at("levels").get<std::vector<std::string>>();
        v.numeric_levels = jv.at("level_order").get<std::string>() == "numeric";
      } else if (jv.contains("scale")) {
        v.center = jv.at("center").get<double>();
        v.scale = jv.at("scale").get<double>();
        // New rows are divided by the scale: a zero, negative or non-finite one is not a fit's
        // (and a zero would silently leave the variable unstandardized).
        if (!std::isfinite(v.center) || !std::isfinite(v.scale) || !(v.scale > 0))
          throw std::invalid_argument("the standardization of " + v.name +
                                      " is not a finite center and a positive scale");
      }
      d.variables.push_back(std::move(v));
    }
    const int nv = static_cast<int>(d.variables.size());
    auto check = [nv](const Term& t) {
      if (t.variables.size() != t.full.size() || t.variables.empty()) throw std::invalid_argument("bad term");
      for (int v : t.variables)
        if (v < 0 || v >= nv) throw std::invalid_argument("bad variable index");
      return t;
    };
    for (const auto& jt : j.at("terms")) d.terms.push_back(check(term_from(jt)));
    for (const auto& jg : j.at("groups")) {
      Group g;
      g.label = jg.at("factor").get<std::string>();
      g.ident = jg.at("ident").get<std::string>();
      g.by = jg.at("by").get<std::vector<int>>();
      for (int v : g.by)
        if (v < 0 || v >= nv) throw std::invalid_argument("bad variable index");
      g.intercept = jg.at("intercept").get<bool>();
      g.correlated = jg.at("correlated").get<bool>();
      for (const auto& jt : jg.at("terms")) g.terms.push_back(check(term_from(jt)));
      g.levels = jg.at("levels").get<std::vector<std::string>>();
      d.groups.push_back(std::move(g));
    }
    expand_columns(d);
    return d;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(e.what());
  }
}

}  // namespace bvi::models::design
