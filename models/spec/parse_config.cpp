#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "common/error.hpp"
#include "common/read_file.hpp"
#include "models/likelihoods/likelihood.hpp"
#include "models/priors/prior_family.hpp"
#include "models/spec/config.hpp"
#include "models/spec/config_schema.hpp"

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
// each naming a column of its own.
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
                            std::pair{"exposure", &data.exposure}}) {
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
  return names;
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

Json resolve_priors(const Json& priors, ModelConfig& out) {
  const std::string where = "/model/priors";
  if (!priors.is_object()) throw config_error(where, "expected an object");
  const auto params = model_parameters(out);
  Json resolved = Json::object();
  for (auto it = priors.begin(); it != priors.end(); ++it) {
    const std::string at = child_pointer(where, it.key());
    if (std::find(params.begin(), params.end(), it.key()) == params.end()) {
      if (it.key() == "alpha")
        throw config_error(at, "the model has no intercept; set /model/intercept to true to use alpha");
      const std::string hint = suggest(it.key(), params);
      throw config_error(at, "the model has no parameter '" + it.key() + "'" +
                                 (hint.empty() ? std::string(" (declare it in /model/parameters)")
                                               : " (did you mean '" + hint + "'?)"));
    }
    const Json& body = it.value();
    if (!body.is_object() || body.size() != 1)
      throw config_error(at, "expected an object with one key, the distribution, e.g. {\"normal\": {...}}");
    const std::string family_name = body.begin().key();
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
    PriorConfig prior;
    prior.family = family_name;
    prior.pointer = at;
    for (const auto& f : family->hyperparameters)
      prior.hypers[f.name] = read_hyper(hypers.at(f.name), child_pointer(hyper_section.pointer, f.name), params,
                                        it.key());
    out.priors[it.key()] = std::move(prior);
    resolved[it.key()] = Json{{family_name, hypers}};
  }
  for (const auto& p : params)
    if (!out.priors.count(p))
      throw config_error(where, "missing prior for '" + p + "'" +
                                    (p == "alpha" ? " (intercept is true)" : p == "beta" ? " (the coefficients)" : ""));
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

  // data
  Json data = resolve_section(data_section(), root.at("data"));
  cfg.data.response = data.at("response").get<std::string>();
  const std::string csv = data.at("csv").get<std::string>();
  const fs::path csv_path(csv);
  cfg.data.csv =
      csv_path.is_absolute() || dir.empty() ? csv : (fs::path(dir) / csv_path).lexically_normal().string();
  if (data.contains("features")) {
    cfg.data.features = data.at("features").get<std::vector<std::string>>();
    for (size_t i = 0; i < cfg.data.features->size(); ++i)
      if ((*cfg.data.features)[i] == cfg.data.response)
        throw config_error("/data/features/" + std::to_string(i),
                           "the response '" + cfg.data.response + "' cannot also be a feature");
  }
  cfg.data.standardize = data.at("standardize").get<bool>();
  cfg.data.dtype = data.at("dtype").get<std::string>();
  for (auto [key, target] : {std::pair{"trials", &cfg.data.trials}, std::pair{"offset", &cfg.data.offset},
                             std::pair{"exposure", &cfg.data.exposure}})
    if (data.contains(key)) *target = data.at(key).get<std::string>();

  // model
  Json model = resolve_section(model_section(), root.at("model"));
  cfg.model.likelihood = model.at("likelihood").get<std::string>();
  cfg.model.intercept = model.at("intercept").get<bool>();
  check_likelihood_columns(cfg.data, cfg.model.likelihood);
  {
    std::vector<std::string> builtin{"alpha", "beta"};
    for (const auto& p : likelihood_parameters_of(cfg.model.likelihood)) builtin.push_back(p.name);
    model["parameters"] = resolve_parameters(model.at("parameters"), builtin, cfg.model);
  }
  model["priors"] = resolve_priors(model.at("priors"), cfg.model);

  // inference
  Json inf = resolve_section(inference_section(), root.at("inference"));
  const Json& opt_in = inf.at("optimizer");
  if (!opt_in.is_object()) throw config_error("/inference/optimizer", "expected an object");
  std::string opt_name = "natural";
  if (opt_in.contains("name")) {
    static const Field name_field{"name", Kind::choice, nullptr, false, {}, optimizer_names(), ""};
    opt_name = resolve_value(name_field, opt_in.at("name"), "/inference/optimizer/name").get<std::string>();
  }
  check_optimizer_keys(opt_name, opt_in);
  inf["optimizer"] = resolve_section(optimizer_section(opt_name), opt_in);
  cfg.inference.algorithm = inf.at("algorithm").get<std::string>();
  auto auto_int = [&](const char* key) { return inf.at(key).is_null() ? 0LL : inf.at(key).get<long long>(); };
  cfg.inference.draws_per_step = auto_int("draws_per_step");
  cfg.inference.optimizer = read_optimizer(inf.at("optimizer"));
  cfg.inference.max_iterations = auto_int("max_iterations");
  if (!inf.at("tol_rel_obj").is_null()) cfg.inference.tol_rel_obj = inf.at("tol_rel_obj").get<double>();
  cfg.inference.eval_elbo = auto_int("eval_elbo");
  cfg.inference.elbo_samples = inf.at("elbo_samples").get<long long>();
  cfg.inference.final_elbo_draws = inf.at("final_elbo_draws").get<long long>();
  cfg.inference.seed = inf.at("seed").get<long long>();
  cfg.inference.output_draws = inf.at("output_draws").get<long long>();

  cfg.resolved = Json{{"data", data}, {"model", model}, {"inference", inf}};
  return cfg;
}

void resolve_automatic(Config& config, long long parameters) {
  InferenceConfig& inf = config.inference;
  const bool natural = inf.optimizer.name == "natural";
  if (inf.draws_per_step == 0) inf.draws_per_step = natural ? std::max(128LL, 2 * parameters + 32) : 64;
  if (inf.max_iterations == 0) inf.max_iterations = natural ? 200 : 10000;
  if (inf.eval_elbo == 0) inf.eval_elbo = std::max(1LL, inf.max_iterations / 50);
  Json& r = config.resolved["inference"];
  r["draws_per_step"] = inf.draws_per_step;
  r["max_iterations"] = inf.max_iterations;
  r["eval_elbo"] = inf.eval_elbo;
}

Config parse_config(const std::string& path) {
  // read_text_file refuses folders, pipes and devices without waiting on them.
  const std::string text = read_text_file(path);
  const fs::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  return parse_config_text(text, path, dir);
}

}  // namespace bvi::spec
