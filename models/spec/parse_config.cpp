#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "common/error.hpp"
#include "common/read_file.hpp"
#include "models/data/missing_cell.hpp"
#include "models/likelihoods/likelihood.hpp"
#include "models/priors/prior_family.hpp"
#include "models/spec/config.hpp"
#include "models/spec/config_schema.hpp"
#include "models/spec/formula.hpp"
#include "models/spec/term_names.hpp"

namespace bvi::spec {

namespace {

namespace fs = std::filesystem;

std::vector<ParameterConfig> likelihood_parameters_of(const std::string& likelihood) {
  return models::likelihood_parameters(likelihood);
}

// nlohmann reports a byte offset; users want the line.
std::string json_error_place(const std::string& path, const std::string& text, std::size_t byte) {
  long line = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return file_line(path, line);
}

std::string strip_json_error(const std::string& what) {
  // "[json.exception.parse_error.101] parse error at line 1, column 3: syntax error while parsing
  // object - unexpected end of input; expected string literal" -> the part after the last ": ".
  const auto pos = what.find(": ");
  return pos == std::string::npos ? what : what.substr(pos + 2);
}

// nlohmann reports a number a double cannot hold (1e400: valid JSON, but not a double) as
// out_of_range without a position. Parsing again with this handler finds where the parser
// gave up; it builds nothing.
class ErrorLocator final : public nlohmann::json_sax<Json> {
 public:
  std::size_t byte = 0;
  std::string token;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string& last_token, const Json::exception&) override {
    byte = position;
    token = last_token;
    return false;
  }
};

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// /model/parameters: the declared parameters, validated, in name order.
Json resolve_parameters(const Json& params, const std::vector<std::string>& builtin, ModelConfig& out) {
  const std::string where = "/model/parameters";
  if (!params.is_object()) throw config_error(where, "expected an object");
  Json resolved = Json::object();
  for (auto it = params.begin(); it != params.end(); ++it) {
    const std::string& name = it.key();
    const std::string at = child_pointer(where, name);
    if (!is_identifier(name) || name.size() > 64 || name.find("__") != std::string::npos)
      throw config_error(at, "a parameter name is a letter or '_' followed by letters, digits or '_' (no \"__\")");
    if (std::find(builtin.begin(), builtin.end(), name) != builtin.end())
      throw config_error(at, "'" + name + "' is already a parameter of the model; choose another name");
    Json body = it.value();
    if (!body.is_object()) throw config_error(at, "expected an object, e.g. {\"constraint\": \"positive\"}");
    ParameterConfig p;
    p.name = name;
    p.pointer = at;
    if (body.contains("size") && body["size"].is_string()) {
      if (body["size"].get<std::string>() != "features")
        throw config_error(child_pointer(at, "size"), "expected an integer or \"features\"");
      p.size_is_features = true;
      body.erase("size");
    }
    Section section = parameter_section();
    section.pointer = at;
    Json r = resolve_section(section, body);
    if (!p.size_is_features) p.size = r.at("size").get<long long>();
    p.constraint = r.at("constraint").get<std::string>();
    if (!r.at("lower").is_null()) p.lower = r.at("lower").get<double>();
    if (!r.at("upper").is_null()) p.upper = r.at("upper").get<double>();
    if (p.constraint != "none" && (p.lower || p.upper))
      throw config_error(child_pointer(at, p.lower ? "lower" : "upper"),
                         "bounds go with constraint \"none\" (constraint \"" + p.constraint + "\" has its own)");
    if (p.lower && p.upper && !(*p.lower < *p.upper))
      throw config_error(child_pointer(at, "upper"), "must be greater than lower");
    if (p.size_is_features) r["size"] = "features";
    resolved[name] = r;
    out.parameters.push_back(std::move(p));
  }
  return resolved;
}

// /data/trials, /data/offset and /data/exposure against the likelihood that reads them, and
// each of them and /data/weights naming a column of its own.
void check_likelihood_columns(const DataConfig& data, const std::string& likelihood) {
  const models::LikelihoodNeeds& needs = models::likelihood_needs(likelihood);
  auto readers = [](bool models::LikelihoodNeeds::*flag) {
    std::string list;
    for (const std::string& name : models::likelihood_names())
      if (models::likelihood_needs(name).*flag) list += (list.empty() ? "" : ", ") + name;
    return list;
  };
  if (data.trials && !needs.trials)
    throw config_error("/data/trials", "the " + likelihood + " likelihood reads no trials column (only " +
                                           readers(&models::LikelihoodNeeds::trials) + " does)");
  if (!data.trials && needs.trials)
    throw config_error("/data/trials", "missing required key for the " + likelihood +
                                           " likelihood: the column with each row's number of trials");
  for (auto [key, value] : {std::pair{"offset", &data.offset}, std::pair{"exposure", &data.exposure}})
    if (*value && !needs.offset)
      throw config_error(std::string("/data/") + key, "the " + likelihood + " likelihood takes no " + key +
                                                          " (only " + readers(&models::LikelihoodNeeds::offset) +
                                                          " does)");
  std::vector<std::pair<std::string, std::string>> taken{{data.response, "the response"}};
  if (data.features)
    for (const auto& f : *data.features) taken.push_back({f, "a feature"});
  for (auto [key, value] : {std::pair{"trials", &data.trials}, std::pair{"offset", &data.offset},
                            std::pair{"exposure", &data.exposure}, std::pair{"weights", &data.weights}}) {
    if (!*value) continue;
    for (const auto& [column, role] : taken)
      if (column == **value)
        throw config_error(std::string("/data/") + key,
                           "'" + column + "' is already " + role + "; the " + key + " column must be another one");
    taken.push_back({**value, std::string("the ") + key + " column"});
  }
}

std::vector<std::string> model_parameters(const ModelConfig& m) {
  std::vector<std::string> names{"beta"};
  if (m.intercept) names.push_back("alpha");
  for (const auto& p : likelihood_parameters_of(m.likelihood)) names.push_back(p.name);
  for (const auto& p : m.parameters) names.push_back(p.name);
  for (const auto& g : m.groups) names.push_back("sd_" + g.ident);
  return names;
}

// The prior keys beside the parameters: cor_F of correlated factors that have slopes (whether
// they make 2 or more effects is known only from the data), and beta[TERM] per term.
std::vector<std::string> other_prior_keys(const ModelConfig& m, const std::vector<std::string>& terms) {
  std::vector<std::string> keys;
  for (const auto& g : m.groups)
    if (g.correlated && !g.terms.empty()) keys.push_back("cor_" + g.ident);
  for (const auto& t : terms) keys.push_back("beta[" + t + "]");
  return keys;
}

HyperValue read_hyper(const Json& v, const std::string& pointer, const std::vector<std::string>& params,
                      const std::string& owner) {
  HyperValue hv;
  hv.pointer = pointer;
  if (v.is_string()) {
    for (const std::string& token : parse_product(v.get<std::string>())) {
      if (std::isalpha(static_cast<unsigned char>(token[0])) || token[0] == '_') {
        if (std::find(params.begin(), params.end(), token) == params.end()) {
          const std::string hint = suggest(token, params);
          throw config_error(pointer, "no parameter '" + token + "'" +
                                          (hint.empty() ? " (declare it in /model/parameters)"
                                                        : " (did you mean '" + hint + "'?)"));
        }
        if (token == owner) throw config_error(pointer, "the prior of '" + owner + "' cannot depend on itself");
        hv.names.push_back(token);
      } else {
        hv.factor *= std::strtod(token.c_str(), nullptr);
      }
    }
    if (hv.names.empty())
      throw config_error(pointer, "expected a number or an expression naming a parameter, got a string of numbers "
                                  "only (\"" + v.get<std::string>() + "\"); write numbers without quotes");
  } else if (v.is_array()) {
    for (const auto& e : v) hv.values.push_back(e.get<double>());
  } else {
    hv.values.push_back(v.get<double>());
  }
  return hv;
}

// The coefficients of one term: "beta[x:sex]" -> the term as data.features writes it, or "".
std::string term_of_key(const std::string& key) {
  if (key.size() < 7 || key.compare(0, 5, "beta[") != 0 || key.back() != ']') return "";
  return key.substr(5, key.size() - 6);
}

Json resolve_priors(const Json& priors, const std::vector<std::string>& terms, ModelConfig& out) {
  const std::string where = "/model/priors";
  if (!priors.is_object()) throw config_error(where, "expected an object");
  const auto params = model_parameters(out);
  const auto others = other_prior_keys(out, terms);
  std::vector<std::string> all = params;
  all.insert(all.end(), others.begin(), others.end());
  Json resolved = Json::object();
  for (auto it = priors.begin(); it != priors.end(); ++it) {
    const std::string at = child_pointer(where, it.key());
    std::string key = it.key();
    // beta[TERM]: the term in any order of its columns (x:z is z:x).
    const std::string term = term_of_key(key);
    if (!term.empty()) {
      const auto found =
          std::find_if(terms.begin(), terms.end(), [&](const std::string& t) { return same_term(t, term); });
      if (found == terms.end()) {
        std::string list;
        for (const auto& t : terms) list += (list.empty() ? "" : ", ") + t;
        throw config_error(at, "the model has no term '" + term + "'" +
                                   (list.empty() ? std::string(" (it has no population-level terms)")
                                                 : " (terms: " + list + ")"));
      }
      key = "beta[" + *found + "]";
      if (out.priors.count(key)) throw config_error(at, "a second prior for the term '" + *found + "'");
    } else if (std::find(all.begin(), all.end(), key) == all.end()) {
      if (key == "alpha")
        throw config_error(at, "the model has no intercept; set /model/intercept to true to use alpha");
      if (key.compare(0, 4, "cor_") == 0)
        for (const auto& g : out.groups)
          if ("cor_" + g.ident == key)
            throw config_error(
                at, g.correlated
                        ? "the group term of '" + g.label + "' has only a varying intercept: no correlations"
                        : "the group term of '" + g.label +
                              "' is uncorrelated ('||', \"correlated\": false): no correlations");
      const std::string hint = suggest(key, all);
      throw config_error(at, "the model has no parameter '" + key + "'" +
                                 (hint.empty() ? std::string(" (declare it in /model/parameters)")
                                               : " (did you mean '" + hint + "'?)"));
    }
    Json body = it.value();
    const bool is_cor =
        key.compare(0, 4, "cor_") == 0 && std::find(others.begin(), others.end(), key) != others.end();
    // alpha and the cutpoints may say where their prior sits: on themselves, or at the feature
    // means (the intercept alpha + means . beta; the cutpoints c_k - means . beta).
    if ((key == "alpha" || key == "cutpoints") && body.is_object() && body.contains("centered")) {
      if (!body["centered"].is_boolean())
        throw config_error(child_pointer(at, "centered"), "expected true or false");
      (key == "alpha" ? out.alpha_prior_centered : out.cutpoints_prior_centered) = body["centered"].get<bool>();
      body.erase("centered");
    }
    if (!body.is_object() || body.size() != 1)
      throw config_error(
          at, is_cor ? "expected {\"lkj\": {\"eta\": ...}}"
                     : "expected an object with one key, the distribution, e.g. {\"normal\": {...}}");
    const std::string family_name = body.begin().key();
    PriorConfig prior;
    prior.family = family_name;
    prior.pointer = at;
    if (is_cor || family_name == "lkj") {
      if (!is_cor)
        throw config_error(child_pointer(at, family_name),
                           "lkj is the prior of correlations (cor_F keys) only");
      if (family_name != "lkj")
        throw config_error(child_pointer(at, family_name),
                           "the correlations of a group term take an lkj prior: {\"lkj\": {\"eta\": 1}}");
      Section sec = lkj_section();
      sec.pointer = child_pointer(at, family_name);
      const Json hypers = resolve_section(sec, body.begin().value());
      prior.hypers["eta"] =
          HyperValue::numbers({hypers.at("eta").get<double>()}, child_pointer(sec.pointer, "eta"));
      out.priors[key] = std::move(prior);
      resolved[key] = Json{{family_name, hypers}};
      continue;
    }
    const models::PriorFamily* family = models::find_prior_family(family_name);
    if (!family) {
      std::vector<std::string> names;
      std::string list;
      for (const auto* f : models::prior_families()) {
        names.push_back(f->name);
        list += (list.empty() ? "" : ", ") + f->name;
      }
      const std::string hint = suggest(family_name, names);
      throw config_error(child_pointer(at, family_name),
                         "unknown distribution" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                             "; known: " + list);
    }
    const Section hyper_section{child_pointer(at, family_name), family->formula, family->hyperparameters};
    const Json hypers = resolve_section(hyper_section, body.begin().value());
    for (const auto& f : family->hyperparameters)
      prior.hypers[f.name] =
          read_hyper(hypers.at(f.name), child_pointer(hyper_section.pointer, f.name), params, key);
    out.priors[key] = std::move(prior);
    resolved[key] = Json{{family_name, hypers}};
    if ((key == "alpha" && out.alpha_prior_centered) || (key == "cutpoints" && out.cutpoints_prior_centered))
      resolved[key]["centered"] = true;
  }
  return resolved;
}

// A key of another optimizer ("eta" under adam) is usually a `name` changed without its keys:
// say whose key it is, where the generic check would guess the nearest spelling ("beta1").
void check_optimizer_keys(const std::string& name, const Json& o) {
  const Section& own = optimizer_section(name);
  auto has = [](const Section& s, const std::string& key) {
    return std::any_of(s.fields.begin(), s.fields.end(), [&](const Field& f) { return f.name == key; });
  };
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (has(own, it.key())) continue;
    std::string owners;
    for (const auto& other : optimizer_names())
      if (has(optimizer_section(other), it.key())) owners += (owners.empty() ? "'" : ", '") + other + "'";
    if (!owners.empty())
      throw config_error(child_pointer("/inference/optimizer", it.key()),
                         "not a key of optimizer '" + name + "'" +
                             (o.contains("name") ? "" : " (the default when no name is given)") +
                             "; it belongs to " + owners);
  }
}


OptimizerConfig read_optimizer(const Json& o) {
  OptimizerConfig c;
  c.name = o.at("name").get<std::string>();
  if (o.contains("learning_rate")) c.learning_rate = o.at("learning_rate").get<double>();
  if (c.name == "adam") {
    c.beta1 = o.at("beta1").get<double>();
    c.beta2 = o.at("beta2").get<double>();
    c.epsilon = o.at("epsilon").get<double>();
    c.decay = o.at("decay").get<double>();
  } else if (c.name == "natural") {
    c.min_learning_rate = o.at("min_learning_rate").get<double>();
    c.half_life = o.at("half_life").get<double>();
  } else if (c.name == "adaptive") {
    if (!o.at("eta").is_null()) c.eta = o.at("eta").get<double>();
    c.adapt_iterations = o.at("adapt_iterations").get<long long>();
    c.tau = o.at("tau").get<double>();
    c.alpha = o.at("alpha").get<double>();
  }
  return c;
}

// /model/formula: the structured keys it stands for, written into the config before validation,
// so a formula and its structured form are the same config from here on. Where each name sits
// in the formula is kept for the errors found once the header is known.
void expand_formula(Json& data, Json& model, ModelConfig& out) {
  const Json& f = model.at("formula");
  if (!f.is_string()) throw config_error("/model/formula", "expected a string, e.g. \"y ~ x + (1 | g)\"");
  out.formula = f.get<std::string>();
  const FormulaAst ast = parse_formula(out.formula);
  for (const char* key : {"response", "features", "offset", "exposure"})
    if (data.contains(key) && (std::string_view(key) != "exposure" || ast.exposure))
      throw config_error(
          std::string("/data/") + key,
          "given by /model/formula as well; remove one of the two (the formula names the response, "
          "the terms, offset() and offset(log()), the exposure)");
  for (const char* key : {"intercept", "groups"})
    if (model.contains(key))
      throw config_error(std::string("/model/") + key,
                         "given by /model/formula as well; remove one of the two ('0 +' drops the intercept, "
                         "(terms | factor) adds group terms)");
  auto note = [&](const FormulaName& n) { out.formula_columns.emplace(n.text, n.column); };
  note(ast.response);
  data["response"] = ast.response.text;
  Json features = Json::array();
  for (const auto& t : ast.terms) {
    features.push_back(t.text());
    out.feature_places.push_back({"/model/formula", t.column});
    for (const auto& c : t.columns) note(c);
  }
  data["features"] = features;
  if (ast.offset) {
    data["offset"] = ast.offset->text;
    note(*ast.offset);
  }
  if (ast.exposure) {
    data["exposure"] = ast.exposure->text;
    note(*ast.exposure);
  }
  // factor(x): x among /data/categorical (a list given beside the formula keeps its entries; one
  // that is not a list is left for the schema to refuse).
  if (!ast.factors.empty() && (!data.contains("categorical") || data.at("categorical").is_array())) {
    Json categorical = data.contains("categorical") ? data.at("categorical") : Json::array();
    for (const auto& f : ast.factors)
      if (std::find(categorical.begin(), categorical.end(), Json(f.text)) == categorical.end())
        categorical.push_back(f.text);
    data["categorical"] = categorical;
  }
  model["intercept"] = ast.intercept;
  Json groups = Json::array();
  for (const auto& g : ast.groups) {
    Json by = Json::array(), terms = Json::array();
    for (const auto& c : g.by) {
      by.push_back(c.text);
      note(c);
    }
    for (const auto& t : g.terms) {
      terms.push_back(t.text());
      for (const auto& c : t.columns) note(c);
    }
    groups.push_back(
        Json{{"by", by}, {"intercept", g.intercept}, {"terms", terms}, {"correlated", g.correlated}});
  }
  model["groups"] = groups;
  model.erase("formula");
}

// /model/groups: each entry validated, its factor named, no factor twice, no response in it.
Json resolve_groups(const Json& groups, const DataConfig& data, ModelConfig& out) {
  Json resolved = Json::array();
  std::vector<std::size_t> formula_cols;
  if (!out.formula.empty()) {
    // The same order as expand_formula wrote them: the formula parser's groups.
    for (const auto& g : parse_formula(out.formula).groups) formula_cols.push_back(g.column);
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string at = "/model/groups/" + std::to_string(i);
    Json body = groups[i];
    if (body.contains("by") && body["by"].is_string()) body["by"] = Json::array({body["by"]});
    Section section = group_section();
    section.pointer = at;
    Json r = resolve_section(section, body);
    GroupConfig g;
    g.by = r.at("by").get<std::vector<std::string>>();
    g.intercept = r.at("intercept").get<bool>();
    g.terms = r.at("terms").get<std::vector<std::string>>();
    g.correlated = r.at("correlated").get<bool>();
    g.pointer = at;
    g.formula_column = i < formula_cols.size() ? formula_cols[i] : 0;
    g.label = join_term(g.by);
    g.ident = factor_identifier(g.by);
    for (size_t k = 0; k < g.by.size(); ++k) {
      term_columns(g.by[k], at + "/by/" + std::to_string(k));  // no ':' or formula syntax in a name
      if (g.by[k].find(':') != std::string::npos)
        throw config_error(at + "/by/" + std::to_string(k),
                           "list the columns of a combined factor separately: [\"a\", \"b\"]");
      if (g.by[k] == data.response)
        throw config_error(at + "/by/" + std::to_string(k),
                           "the response '" + data.response + "' cannot also be a grouping column");
    }
    if (!g.intercept && g.terms.empty())
      throw config_error(at, "no effects: give a varying intercept or terms");
    for (size_t k = 0; k < g.terms.size(); ++k) {
      const std::string tat = at + "/terms/" + std::to_string(k);
      for (const auto& c : term_columns(g.terms[k], tat))
        if (c == data.response)
          throw config_error(tat, "the response '" + data.response + "' cannot also be a predictor");
      for (size_t j = 0; j < k; ++j)
        if (same_term(g.terms[j], g.terms[k]))
          throw config_error(tat, "'" + g.terms[k] + "' is listed twice");
    }
    for (const auto& other : out.groups) {
      if (same_term(other.label, g.label))
        throw config_error(at, "the grouping factor '" + g.label + "' already has a term (" + other.pointer +
                                   "); one term per factor, with every varying effect in it");
      if (other.ident == g.ident)
        throw config_error(at, "the grouping factors '" + other.label + "' and '" + g.label +
                                   "' would have the same parameter names (" + g.ident +
                                   "); rename a column");
    }
    r["by"] = g.by;
    out.groups.push_back(std::move(g));
    resolved.push_back(std::move(r));
  }
  return resolved;
}

}  // namespace

Config parse_config_text(const std::string& text, const std::string& path, const std::string& dir) {
  Config cfg;
  cfg.path = path;
  cfg.dir = dir;
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw config_error(json_error_place(path, text, e.byte == 0 ? 0 : e.byte - 1),
                       "invalid JSON: " + strip_json_error(e.what()));
  } catch (const Json::out_of_range&) {
    ErrorLocator locator;
    Json::sax_parse(text, &locator);
    throw config_error(json_error_place(path, text, locator.byte == 0 ? 0 : locator.byte - 1),
                       "number " + locator.token + " is too large for a double");
  }
  Json root = resolve_section(root_section(), doc);
  Json data_in = root.at("data"), model_in = root.at("model");
  if (!data_in.is_object()) throw config_error("/data", "expected an object");
  if (!model_in.is_object()) throw config_error("/model", "expected an object");
  if (model_in.contains("formula")) expand_formula(data_in, model_in, cfg.model);

  // data
  Json data = resolve_section(data_section(), data_in);
  if (!data.contains("response"))
    throw config_error("/data/response", "missing required key (or give /model/formula)");
  cfg.data.response = data.at("response").get<std::string>();
  const std::string csv = data.at("csv").get<std::string>();
  const fs::path csv_path(csv);
  cfg.data.csv =
      csv_path.is_absolute() || dir.empty() ? csv : (fs::path(dir) / csv_path).lexically_normal().string();
  if (data.contains("features")) {
    cfg.data.features = data.at("features").get<std::vector<std::string>>();
    const bool from_formula = !cfg.model.formula.empty();
    for (size_t i = 0; i < cfg.data.features->size(); ++i) {
      const std::string at = "/data/features/" + std::to_string(i);
      const std::string& term = (*cfg.data.features)[i];
      if (!from_formula) cfg.model.feature_places.push_back({at, 0});
      if (term == cfg.data.response)
        throw config_error(at, "the response '" + cfg.data.response + "' cannot also be a feature");
      for (const auto& c : term_columns(term, at))
        if (c == cfg.data.response)
          throw config_error(at, "the response '" + cfg.data.response + "' cannot also be a predictor");
      for (size_t j = 0; j < i; ++j)
        if (same_term((*cfg.data.features)[j], term))
          throw config_error(at, "'" + term + "' is the same term as /data/features/" + std::to_string(j) +
                                     " ('" + (*cfg.data.features)[j] + "')");
    }
  }
  if (data.contains("categorical")) {
    cfg.data.categorical = data.at("categorical").get<std::vector<std::string>>();
    for (size_t i = 0; i < cfg.data.categorical.size(); ++i)
      if (cfg.data.categorical[i] == cfg.data.response)
        throw config_error("/data/categorical/" + std::to_string(i),
                           "the response '" + cfg.data.response + "' cannot be categorical");
  }
  if (data.contains("allow_many_levels"))
    cfg.data.allow_many_levels = data.at("allow_many_levels").get<std::vector<std::string>>();
  if (data.contains("reference_levels"))
    for (const auto& [column, level] : data.at("reference_levels").items()) {
      if (!level.is_string())
        throw config_error(child_pointer("/data/reference_levels", column),
                           "expected the reference level as a string, e.g. \"placebo\" (a number as \"2\")");
      cfg.data.reference_levels.emplace(column, level.get<std::string>());
    }
  cfg.data.missing = data.at("missing").get<std::string>();
  cfg.data.standardize = data.at("standardize").get<bool>();
  cfg.data.dtype = data.at("dtype").get<std::string>();
  for (auto [key, target] : {std::pair{"trials", &cfg.data.trials}, std::pair{"offset", &cfg.data.offset},
                             std::pair{"exposure", &cfg.data.exposure}, std::pair{"weights", &cfg.data.weights}})
    if (data.contains(key)) *target = data.at(key).get<std::string>();

  // model
  Json model = resolve_section(model_section(), model_in);
  cfg.model.likelihood = model.at("likelihood").get<std::string>();
  cfg.model.intercept = model.at("intercept").get<bool>();
  const bool ordinal = has_cutpoints(cfg.model.likelihood);
  if (ordinal && cfg.model.intercept) {
    // The cutpoints take the intercept's place (brms's cumulative, stan_polr): a formula's implicit
    // intercept is dropped, as brms does (its factors still coded against it: plan_design); one
    // asked for by name is an error.
    if (cfg.model.formula.empty())
      throw config_error("/model/intercept", cfg.model.likelihood +
                                                 " has no intercept (its cutpoints take its place); remove "
                                                 "/model/intercept or set it to false");
    cfg.model.intercept = false;
    model["intercept"] = false;
  }
  check_likelihood_columns(cfg.data, cfg.model.likelihood);
  const bool categorical = cfg.model.likelihood == "categorical_logit";
  // Their defaults (as `check --explain` writes them) are allowed with any likelihood.
  if (!categorical && !ordinal && !model.at("categories").is_null())
    throw config_error("/model/categories",
                       "applies to the categorical_logit, ordinal_logit and ordinal_probit likelihoods only");
  if (!categorical && model.at("reference_category").get<long long>() != 1)
    throw config_error("/model/reference_category", "applies to the categorical_logit likelihood only");
  if (!model.at("categories").is_null()) cfg.model.categories = model.at("categories").get<long long>();
  cfg.model.reference_category = model.at("reference_category").get<long long>();
  if (data.contains("levels")) {
    // The response's labels in order (ordinal: lowest first; categorical: the reference first by
    // default; binary: failure, success): K from the list, each label read as its position (from
    // 0 for the binary likelihoods). Labels are compared as text after trimming the cell's spaces,
    // so a level must be trimmed itself, and it must not read as a missing cell.
    const bool binary = first_level_value(cfg.model.likelihood) == 0.0;
    if (!ordinal && !categorical && !binary)
      throw config_error("/data/levels",
                         "the " + cfg.model.likelihood +
                             " likelihood takes no levels (only ordinal_logit, ordinal_probit, "
                             "categorical_logit, bernoulli_logit and bernoulli_probit do: the "
                             "response's categories)");
    cfg.data.levels = data.at("levels").get<std::vector<std::string>>();
    const std::size_t n = cfg.data.levels.size();
    if (binary && n != 2)
      throw config_error(
          "/data/levels",
          "a binary response has 2 labels, [failure, success] (read as 0 and 1); got " + std::to_string(n));
    if (n < 2)
      throw config_error("/data/levels", "needs at least 2 categories, lowest first; got " + std::to_string(n));
    if (n > static_cast<std::size_t>(models::kMaxOrdinalLevels))
      throw config_error("/data/levels", "at most " + std::to_string(models::kMaxOrdinalLevels) +
                                             " categories; got " + std::to_string(n));
    for (std::size_t i = 0; i < n; ++i) {
      const std::string& label = cfg.data.levels[i];
      const std::string at = "/data/levels/" + std::to_string(i);
      if (bvi::data::is_missing_cell(label))
        throw config_error(at, "'" + label + "' reads as a missing cell (empty, NA or NaN), not a category");
      if (bvi::data::trim_spaces(label).size() != label.size())
        throw config_error(at, "'" + label + "' has surrounding spaces (cells are compared without them)");
      for (std::size_t j = 0; j < i; ++j)
        if (cfg.data.levels[j] == label)
          throw config_error(at, "'" + label + "' is listed twice (also /data/levels/" + std::to_string(j) + ")");
    }
  }
  // The ordinal likelihoods' K given as a number (kfold writes the full data's into every fold's
  // config, so a fold whose training rows lack the top category keeps its cutpoints).
  if (ordinal && cfg.model.categories > models::kMaxOrdinalLevels)
    throw config_error("/model/categories", "at most " + std::to_string(models::kMaxOrdinalLevels) +
                                                " categories for " + cfg.model.likelihood + "; got " +
                                                std::to_string(cfg.model.categories));
  if (cfg.model.categories > 0 && !cfg.data.levels.empty() &&
      cfg.model.categories != static_cast<long long>(cfg.data.levels.size()))
    throw config_error("/model/categories", "is " + std::to_string(cfg.model.categories) + ", but /data/levels has " +
                                                std::to_string(cfg.data.levels.size()) + " categories");
  if (categorical && !cfg.data.levels.empty()) {
    // The labels fix K, as /model/categories would (a label no row takes is still a category).
    cfg.model.categories = static_cast<long long>(cfg.data.levels.size());
    model["categories"] = cfg.model.categories;
  }
  if (cfg.model.categories > 0 && cfg.model.reference_category > cfg.model.categories)
    throw config_error(
        "/model/reference_category",
        "is " + std::to_string(cfg.model.reference_category) + ", but " +
            (cfg.data.levels.empty()
                 ? "/model/categories is " + std::to_string(cfg.model.categories)
                 : "/data/levels has " + std::to_string(cfg.model.categories) + " categories"));
  model["groups"] = resolve_groups(model.at("groups"), cfg.data, cfg.model);
  if (cfg.data.features && cfg.data.features->empty() && !cfg.model.intercept && cfg.model.groups.empty() &&
      !ordinal)
    throw config_error("/data/features",
                       "no terms: with no features, no intercept and no group terms the model "
                       "has nothing to fit (set /model/intercept to true for an intercept-only model)");
  {
    std::vector<std::string> builtin{"alpha", "beta"};
    for (const auto& p : likelihood_parameters_of(cfg.model.likelihood)) builtin.push_back(p.name);
    for (const auto& g : cfg.model.groups)
      for (const char* prefix : {"r_", "sd_", "L_", "cor_"}) builtin.push_back(prefix + g.ident);
    model["parameters"] = resolve_parameters(model.at("parameters"), builtin, cfg.model);
  }
  model["priors"] =
      resolve_priors(model.at("priors"), cfg.data.features.value_or(std::vector<std::string>{}), cfg.model);

  // inference
  const Json& raw_inf = root.at("inference");
  Json inf = resolve_section(inference_section(), raw_inf);
  // The Monte Carlo settings a user gives only for the Monte Carlo method.
  static const char* const kMonteCarloKeys[] = {"optimizer", "draws_per_step", "eval_elbo", "elbo_samples"};
  std::string given_mc_key;
  for (const char* key : kMonteCarloKeys)
    if (raw_inf.is_object() && raw_inf.contains(key) && !raw_inf.at(key).is_null() && given_mc_key.empty())
      given_mc_key = key;
  std::string method = inf.at("method").get<std::string>();
  const std::string no_exact = models::exact_method_refusal(cfg.model.likelihood);
  if (method == "auto" && !no_exact.empty()) {
    method = "monte_carlo";
    cfg.inference.method_reason = "auto: monte_carlo (the " + cfg.model.likelihood + " likelihood has no exact ELBO)";
  } else if (method == "auto") {
    method = given_mc_key.empty() ? "exact" : "monte_carlo";
    cfg.inference.method_reason = given_mc_key.empty()
                                      ? "auto: exact (every model here has an exact ELBO)"
                                      : "auto: monte_carlo (the config sets /inference/" + given_mc_key + ")";
  } else {
    cfg.inference.method_reason = "given in the config";
    if (method == "exact" && !no_exact.empty())
      throw config_error("/inference/method",
                         "exact does not fit the " + cfg.model.likelihood + " likelihood: " + no_exact);
    if (method == "exact" && !given_mc_key.empty())
      throw config_error("/inference/" + given_mc_key,
                         "applies to the monte_carlo method only; remove it or set /inference/method to "
                         "\"monte_carlo\"");
  }
  inf["method"] = method;
  cfg.inference.method = method;
  cfg.inference.method_for_likelihood = !no_exact.empty();
  if (method == "monte_carlo" && inf.at("algorithm") == "structured")
    throw config_error(
        "/inference/algorithm",
        "structured is a family of the exact method; use meanfield, fullrank or sparse with monte_carlo");
  if (method == "monte_carlo") {
    const Json& opt_in = inf.at("optimizer");
    if (!opt_in.is_object()) throw config_error("/inference/optimizer", "expected an object");
    std::string opt_name = "natural";
    if (opt_in.contains("name")) {
      static const Field name_field{"name", Kind::choice, nullptr, false, {}, optimizer_names(), ""};
      opt_name = resolve_value(name_field, opt_in.at("name"), "/inference/optimizer/name").get<std::string>();
    }
    check_optimizer_keys(opt_name, opt_in);
    // The name resolved here, written before the section's defaults fill the rest: an optimizer
    // given without one ({"learning_rate": 0.5}) is the natural one, whose keys are read below.
    Json named = opt_in;
    named["name"] = opt_name;
    inf["optimizer"] = resolve_section(optimizer_section(opt_name), named);
    cfg.inference.optimizer = read_optimizer(inf.at("optimizer"));
  } else {
    // The resolved form (check --explain) leaves the Monte Carlo settings out: it is a config
    // that fits the same, and these keys would select the other method.
    for (const char* key : kMonteCarloKeys) inf.erase(key);
  }
  cfg.inference.algorithm = inf.at("algorithm").get<std::string>();
  cfg.inference.algorithm_auto = cfg.inference.algorithm == "auto";
  // The Monte Carlo method's sparse family is fitted by natural steps (natural_sparse_step.hpp): the
  // other optimizers are gradient ascent on the flat parameters, and the precision's values on the
  // pattern are no parameterization they can keep positive definite.
  if (method == "monte_carlo" && cfg.inference.algorithm == "sparse" &&
      cfg.inference.optimizer.name != "natural")
    throw config_error("/inference/algorithm",
                       "sparse is fitted by the natural optimizer only; use it (the default) "
                       "or meanfield or fullrank with '" +
                           cfg.inference.optimizer.name + "'");
  cfg.inference.tol_grad = inf.at("tol_grad").get<double>();
  auto auto_int = [&](const char* key) {
    return !inf.contains(key) || inf.at(key).is_null() ? 0LL : inf.at(key).get<long long>();
  };
  cfg.inference.draws_per_step = auto_int("draws_per_step");
  cfg.inference.max_iterations = auto_int("max_iterations");
  if (!inf.at("tol_rel_obj").is_null()) cfg.inference.tol_rel_obj = inf.at("tol_rel_obj").get<double>();
  // tol_step, the natural optimizer's rule. Not given, it is on (0.05) only where the run length is
  // automatic: a given max_iterations or tol_rel_obj runs as it did before the rule. The resolved
  // form writes the value, so that it fits the same.
  {
    const bool given = raw_inf.is_object() && raw_inf.contains("tol_step");
    const bool natural = method == "monte_carlo" && cfg.inference.optimizer.name == "natural";
    if (given && !inf.at("tol_step").is_null() && !natural)
      throw config_error("/inference/tol_step",
                         method == "exact" ? "a setting of the monte_carlo method's natural optimizer; the exact "
                                             "method stops on tol_grad (set /inference/method to "
                                             "\"monte_carlo\" to use it)"
                                           : "only the natural optimizer has this rule; use tol_rel_obj with '" +
                                                 cfg.inference.optimizer.name + "'");
    if (!natural) {
      if (method == "exact")
        inf.erase("tol_step");
      else
        inf["tol_step"] = nullptr;
    } else if (given) {
      if (!inf.at("tol_step").is_null()) cfg.inference.tol_step = inf.at("tol_step").get<double>();
    } else {
      const bool run_length_given = (raw_inf.contains("max_iterations") && !raw_inf.at("max_iterations").is_null()) ||
                                    cfg.inference.tol_rel_obj.has_value();
      if (!run_length_given) cfg.inference.tol_step = 0.05;
      inf["tol_step"] = cfg.inference.tol_step ? Json(*cfg.inference.tol_step) : Json(nullptr);
    }
  }
  // init: the natural optimizer's start at the posterior mode (initial_mode.hpp). A model with group
  // terms has no joint mode to start from (it lies at a group sd of 0).
  {
    const std::string init = inf.at("init").get<std::string>();
    const bool natural = method == "monte_carlo" && cfg.inference.optimizer.name == "natural";
    if (method == "exact") {
      if (init != "auto")
        throw config_error("/inference/init", "a setting of the monte_carlo method; the exact method starts "
                                              "from its own initial mean");
      inf.erase("init");
    } else if (init == "mode" && !natural) {
      throw config_error("/inference/init",
                         "mode starts the natural optimizer only; use origin (or auto) with '" +
                             cfg.inference.optimizer.name + "'");
    } else if (init == "mode" && !cfg.model.groups.empty()) {
      throw config_error("/inference/init",
                         "mode needs a model without group terms (with them the joint density has no mode: it "
                         "grows without bound as a group sd goes to 0); use origin (or auto)");
    } else {
      // auto is settled by resolve_automatic, once P is known.
      cfg.inference.init_auto = init == "auto";
      cfg.inference.start_at_mode = init == "mode" || (init == "auto" && natural && cfg.model.groups.empty());
      inf["init"] = cfg.inference.start_at_mode ? "mode" : "origin";
    }
  }
  cfg.inference.eval_elbo = auto_int("eval_elbo");
  cfg.inference.elbo_samples = auto_int("elbo_samples");
  // final_elbo_draws: null is automatic (the output draws themselves where they serve, else 4000
  // fresh draws, the number the memory estimate and the exact method's k-hat use).
  cfg.inference.final_elbo_automatic = inf.at("final_elbo_draws").is_null();
  cfg.inference.final_elbo_draws =
      cfg.inference.final_elbo_automatic ? 4000 : inf.at("final_elbo_draws").get<long long>();
  cfg.inference.seed = inf.at("seed").get<long long>();
  cfg.inference.output_draws = inf.at("output_draws").get<long long>();

  cfg.resolved = Json{{"data", data}, {"model", model}, {"inference", inf}};
  return cfg;
}

std::string automatic_algorithm(const std::string& method, long long parameters, long long rows,
                                std::string* reason, bool group_scales, bool sparse_fits,
                                bool likelihood_monte_carlo, bool natural_optimizer,
                                bool monte_carlo_sparse) {
  // The Monte Carlo method's fullrank: P (P + 1) / 2 scale entries learned from noisy gradients, so
  // only where P is small.
  constexpr long long kMaxMonteCarloFullrank = 100;
  constexpr long long kMaxParameters = 500;
  constexpr double kMaxWork = 2e10;  // rows x P^2: about ten passes of fullrank's GEMMs in a few seconds
  const double work = static_cast<double>(rows) * static_cast<double>(parameters) * static_cast<double>(parameters);
  std::ostringstream why;
  std::string family;
  if (method != "exact" && likelihood_monte_carlo && parameters <= kMaxMonteCarloFullrank) {
    family = "fullrank";
    why << "auto: fullrank (P = " << parameters << " <= " << kMaxMonteCarloFullrank
        << ", a likelihood only the Monte Carlo method fits); it keeps the posterior correlations (the "
           "likelihood's own parameters' with the coefficients) meanfield drops";
  } else if (method != "exact" && natural_optimizer && (group_scales || sparse_fits) &&
             parameters <= kMaxParameters && work <= kMaxWork) {
    // The natural optimizer's fullrank (2P + 32 draws a step, the curvature regressed on them);
    // adam's would learn P (P + 1) / 2 scale entries from 64 noisy gradients. Meanfield drops each group
    // effect's dependence on its sd and on the population effects: on an ordinal model of 1847 rows in 185
    // groups it put the population effect's sd at 0.65x NUTS's (fullrank 0.99x), and before the Monte Carlo
    // steps were bounded it let the group sd collapse.
    family = "fullrank";
    why << "auto: fullrank (P = " << parameters << " <= " << kMaxParameters << ", N P^2 = " << work
        << " <= " << kMaxWork
        << ", the model has group effects); it keeps each group effect's dependence on its sd and on the "
           "population effects, which meanfield drops";
  } else if (method != "exact" && natural_optimizer && (group_scales || sparse_fits) && monte_carlo_sparse) {
    // Beyond fullrank's bounds: the precision on the posterior's pattern, its curvature from
    // Hessian-vector products at the draws and the prior's expectation in closed form
    // (natural_sparse_step.hpp): fullrank's answer at a cost linear in the groups, where meanfield
    // put an ordinal model's group sd at 0.16 against 0.60 (8000 rows in 800 groups; sparse 0.60
    // in 30 steps, 0.37 s; fullrank 16 s). Within the bounds fullrank stays: sparse's first steps
    // can let a nested factor's sd fall into the funnel, from which its steps climb back slowly
    // (1 of 12 seeds on an ordinal (1 | a/b) of 576 rows; README). Crossed factors, known once the
    // rows are read, fall back to meanfield (monte_carlo_sparse false).
    family = "sparse";
    why << "auto: sparse (the model has group effects, P = " << parameters << ", N P^2 = " << work
        << ", beyond fullrank's P <= " << kMaxParameters << " and N P^2 <= " << kMaxWork
        << "): a precision zero between groups that share no row keeps each group effect's dependence on its "
           "sd "
           "and on the population effects, as fullrank does, at a cost linear in the number of groups";
  } else if (method != "exact") {
    family = "meanfield";
    why << "auto: meanfield (the Monte Carlo method's default family)";
  } else if (sparse_fits) {
    family = "sparse";
    why << "auto: sparse, the model has group effects (P = " << parameters
        << "): a precision zero between groups that share no row holds fullrank's optimum at a cost linear in "
           "the number of groups";
  } else if (parameters <= kMaxParameters && work <= kMaxWork) {
    family = "fullrank";
    why << "auto: fullrank, affordable here (P = " << parameters << " <= " << kMaxParameters << ", N P^2 = " << work
        << " <= " << kMaxWork << "); it keeps the posterior correlations meanfield drops";
  } else {
    family = group_scales ? "structured" : "meanfield";
    why << "auto: " << family << ", since fullrank would cost too much (P = " << parameters << ", N P^2 = " << work
        << "; fullrank needs P <= " << kMaxParameters << " and N P^2 <= " << kMaxWork << ")";
    if (group_scales) why << "; it keeps each group effect's dependence on its sd, which meanfield drops";
  }
  if (reason) *reason = why.str();
  return family;
}

long long automatic_draws_per_step(const Config& config, long long parameters) {
  const InferenceConfig& inf = config.inference;
  if (inf.optimizer.name != "natural") return 64;
  if (inf.algorithm == "meanfield") return kMeanfieldNaturalDraws;
  // The sparse family's curvature is the Hessian on its pattern at each draw (n + sum K gradients a
  // draw), not a regression on the draws: a few draws carry it, and the control variate the mean.
  if (inf.algorithm == "sparse") return kSparseNaturalDraws;
  // Fullrank's curvature is a P x P covariance of gradients and draws. categorical_logit's
  // K - 1 sets of group effects make it noisier than the other likelihoods' at the same P: with
  // 2P + 32 draws its fullrank fits of (1 + x | g) (1200 rows, 12 groups, P = 60) diverged in 4 of
  // 6 seeds, with 4P + 32 in none of 12 (ordinal_logit's of the same size in none with 2P + 32).
  const long long per_parameter =
      config.model.likelihood == "categorical_logit" && !config.model.groups.empty() ? 4 : 2;
  return std::max(128LL, per_parameter * parameters + 32);
}

void resolve_automatic(Config& config, long long parameters, long long rows, bool group_scales, bool sparse_fits) {
  InferenceConfig& inf = config.inference;
  Json& r = config.resolved["inference"];
  if (inf.algorithm_auto || inf.algorithm == "auto") {
    inf.algorithm =
        automatic_algorithm(inf.method, parameters, rows, &inf.algorithm_reason, group_scales, sparse_fits,
                            inf.method_for_likelihood, inf.optimizer.name == "natural");
    inf.algorithm_auto = true;
  } else if (inf.algorithm_reason.empty()) {
    inf.algorithm_reason = "given in the config";
  }
  r["algorithm"] = inf.algorithm;
  if (inf.method == "exact") {
    if (inf.max_iterations == 0) inf.max_iterations = 200;
    r["max_iterations"] = inf.max_iterations;
    return;
  }
  const bool natural = inf.optimizer.name == "natural";
  // init auto: the mode only while its Newton iterations, a batch of P + 1 gradients each, cost
  // about a step of fullrank's 2P + 32 draws.
  constexpr long long kMaxModeParameters = 100;
  if (inf.init_auto && inf.start_at_mode && parameters > kMaxModeParameters) {
    inf.start_at_mode = false;
    r["init"] = "origin";
  }
  inf.draws_per_step_auto = inf.draws_per_step == 0;
  if (inf.draws_per_step == 0) inf.draws_per_step = automatic_draws_per_step(config, parameters);
  if (inf.max_iterations == 0) inf.max_iterations = natural ? 200 : 10000;
  if (inf.eval_elbo == 0) inf.eval_elbo = std::max(1LL, inf.max_iterations / 50);
  if (inf.elbo_samples == 0) inf.elbo_samples = 100;
  r["draws_per_step"] = inf.draws_per_step;
  r["max_iterations"] = inf.max_iterations;
  r["eval_elbo"] = inf.eval_elbo;
  r["elbo_samples"] = inf.elbo_samples;
}

Config parse_config(const std::string& path) {
  // read_text_file refuses folders, pipes and devices without waiting on them.
  const std::string text = read_text_file(path);
  const fs::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  return parse_config_text(text, path, dir);
}

}  // namespace bvi::spec
