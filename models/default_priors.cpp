#include "models/default_priors.hpp"

#include <cmath>

namespace bvi::models {

namespace {

spec::PriorConfig prior(const std::string& key, const std::string& family,
                        std::vector<std::pair<std::string, std::vector<double>>> hypers) {
  spec::PriorConfig p;
  p.family = family;
  p.pointer = "/model/priors/" + key;
  for (auto& [name, values] : hypers)
    p.hypers[name] = spec::HyperValue::numbers(std::move(values), p.pointer + "/" + family + "/" + name);
  return p;
}

spec::Json to_json(const spec::PriorConfig& p) {
  spec::Json h = spec::Json::object();
  for (const auto& [name, v] : p.hypers)
    h[name] = v.values.size() == 1 ? spec::Json(v.values[0]) : spec::Json(v.values);
  return spec::Json{{p.family, h}};
}

}  // namespace

void fill_default_priors(spec::Config& config, const ModelShape& shape, const DataScales& scales) {
  spec::ModelConfig& m = config.model;
  spec::Json& resolved = config.resolved["model"]["priors"];
  const double sy = scales.y_sd > 0 && std::isfinite(scales.y_sd) ? scales.y_sd : 1.0;
  auto add = [&](const std::string& key, spec::PriorConfig p) {
    if (m.priors.count(key)) return;
    resolved[key] = to_json(p);
    m.priors[key] = std::move(p);
  };
  std::vector<double> scale(shape.features.size());
  for (std::size_t j = 0; j < scale.size(); ++j) {
    const double sx =
        j < static_cast<std::size_t>(scales.x_sd.size()) ? scales.x_sd[static_cast<Eigen::Index>(j)] : 1.0;
    scale[j] = 2.5 * sy / (sx > 0 && std::isfinite(sx) ? sx : 1.0);
  }
  if (scale.empty()) scale.push_back(2.5 * sy);
  add("beta", prior("beta", "normal", {{"loc", {0.0}}, {"scale", scale}}));
  if (m.intercept && !m.priors.count("alpha")) {
    add("alpha",
        prior("alpha", "student_t", {{"df", {3.0}}, {"loc", {scales.y_mean}}, {"scale", {2.5 * sy}}}));
    m.alpha_prior_centered = true;
    resolved["alpha"]["centered"] = true;
  }
  for (const auto& p : likelihood_parameters(m.likelihood)) {
    // rstanarm's for normal's sigma (student_t's too); lognormal's is the same on log y (s_y = sd(log y)).
    if (p.name == "sigma") add("sigma", prior("sigma", "exponential", {{"rate", {1.0 / sy}}}));
    // brms's default for the negative binomial's shape and the beta's precision.
    if (p.name == "phi") add("phi", prior("phi", "gamma", {{"shape", {0.01}}, {"rate", {0.01}}}));
    // brms's default for the gamma likelihood's shape.
    if (p.name == "shape") add("shape", prior("shape", "gamma", {{"shape", {0.01}}, {"rate", {0.01}}}));
    // brms's default for the Student t likelihood's degrees of freedom (mean 20, sd 14).
    if (p.name == "nu") add("nu", prior("nu", "gamma", {{"shape", {2.0}}, {"rate", {0.1}}}));
    // brms's default for the cumulative family's thresholds (its Intercept[k]), which brms puts on
    // the thresholds of the centred predictors, c_k - means . beta (as rstanarm's polr puts its
    // prior at the predictors' means): centered, as alpha's.
    if (p.name == "cutpoints" && !m.priors.count("cutpoints")) {
      add("cutpoints", prior("cutpoints", "student_t", {{"df", {3.0}}, {"loc", {0.0}}, {"scale", {2.5}}}));
      m.cutpoints_prior_centered = true;
      resolved["cutpoints"]["centered"] = true;
    }
  }
  for (const auto& g : shape.groups) {
    add("sd_" + g.ident, prior("sd_" + g.ident, "half_student_t", {{"df", {3.0}}, {"scale", {2.5 * sy}}}));
    if (g.has_correlations()) add("cor_" + g.ident, prior("cor_" + g.ident, "lkj", {{"eta", {1.0}}}));
  }
}

}  // namespace bvi::models
