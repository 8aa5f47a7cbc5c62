#include "cli/fit_rows.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "cli/logging.hpp"
#include "common/error.hpp"
#include "models/data/csv_reader.hpp"
#include "models/default_priors.hpp"
#include "models/design/design.hpp"
#include "models/spec/term_names.hpp"

namespace bvi::cli {

namespace {

std::string fit_rows_join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

namespace {

// The design of a fit: the summary's, or for a fit made before designs were recorded, its
// features as numeric variables (standardized as the summary says).
models::design::Design fit_rows_design(const models::FitResult& fit, const std::string& summary) {
  if (!fit.design.is_null()) {
    try {
      return models::design::design_from_json(fit.design);
    } catch (const std::exception& e) {
      throw data_error(summary, std::string("not the summary of a bayes-vi fit (design: ") + e.what() + ")");
    }
  }
  models::design::Design d;
  d.intercept = fit.intercept;
  for (std::size_t j = 0; j < fit.features.size(); ++j) {
    models::design::Variable v;
    v.name = fit.features[j];
    if (fit.center.size() > 0) {
      v.center = fit.center[static_cast<Eigen::Index>(j)];
      v.scale = fit.scale[static_cast<Eigen::Index>(j)];
    }
    d.variables.push_back(v);
    models::design::Term t;
    t.text = v.name;
    t.variables = {static_cast<int>(j)};
    t.full = {false};
    d.terms.push_back(t);
  }
  models::design::expand_columns(d);
  return d;
}

// Terms in the order a design puts them (models/design/design.cpp, R's rule): by degree, each
// degree in the order written. "y ~ x:z + x + z" is the fit of x, z, x:z.
std::vector<std::string> in_design_order(std::vector<std::string> terms) {
  std::stable_sort(terms.begin(), terms.end(), [](const std::string& a, const std::string& b) {
    return spec::term_columns(a, "/data/features").size() < spec::term_columns(b, "/data/features").size();
  });
  return terms;
}

Eigen::Index fit_rows_column_of(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t j = 0; j < names.size(); ++j)
    if (names[j] == name) return static_cast<Eigen::Index>(j);
  return -1;
}

}  // namespace

FitForConfig load_fit_for_config(spec::Config& config, const std::string& fit_dir) {
  FitForConfig f;
  f.fit = models::read_fit(fit_dir);
  f.design = fit_rows_design(f.fit, fit_dir + "/summary.json");
  const models::FitResult& fit = f.fit;
  const models::design::Design& design = f.design;

  // The fit must be a fit of this model: the same likelihood, response, terms and parameters.
  if (fit.likelihood != config.model.likelihood)
    throw config_error("/model/likelihood", "the fit in " + fit_dir + " was made with '" + fit.likelihood +
                                                "', the config says '" + config.model.likelihood + "'");
  // The rows are read with the fit's response column: a config naming another would be answered
  // for the fit's response under the config's name.
  if (!fit.response.empty() && fit.response != config.data.response)
    throw config_error(config.model.formula.empty() ? "/data/response" : "/model/formula",
                       "the fit in " + fit_dir + " was made with the response '" + fit.response +
                           "', the config says '" + config.data.response + "'");
  std::vector<std::string> terms;
  for (const auto& t : design.terms) terms.push_back(t.text);
  if (config.data.features && in_design_order(*config.data.features) != terms)
    throw config_error("/data/features",
                       "the fit in " + fit_dir + " was made with the terms " + fit_rows_join(terms));
  if (!config.data.features) {
    // The default terms, every column the model does not use otherwise, are the data file's
    // header's: planned from it as the fit planned them (its columns' kinds do not change which
    // terms there are).
    const data::CsvReader header(config.data.csv);
    const models::design::Design planned = models::design::plan_design(
        config, header.columns(), [](const std::vector<int>& c) { return std::vector<bool>(c.size(), false); },
        file_line(config.data.csv, 1));
    std::vector<std::string> defaults;
    for (const auto& t : planned.terms) defaults.push_back(t.text);
    if (defaults != terms)
      throw config_error("/data/features", "the fit in " + fit_dir + " was made with the terms " +
                                               fit_rows_join(terms) + "; the config has none, and every other column of " +
                                               config.data.csv + " is " + fit_rows_join(defaults));
  }
  models::ModelShape shape;
  shape.features = design.column_names();
  for (const auto& t : design.terms) shape.terms.push_back({t.text, t.first_column, t.n_columns});
  for (const auto& g : design.groups)
    shape.groups.push_back({g.ident, g.label, g.levels, g.effect_names(), g.correlated});
  // The ordinal likelihoods' K, from the fit's cutpoints (K - 1 of them).
  Eigen::Index cutpoints = 0;
  for (const auto& name : fit.names)
    if (name.compare(0, 10, "cutpoints.") == 0) ++cutpoints;
  if (cutpoints > 0) shape.response_levels = cutpoints + 1;
  const auto check_categories = [&] {
    if (config.model.categories > 0 && config.model.categories != shape.response_levels)
      throw config_error("/model/categories", "the fit in " + fit_dir + " has " +
                                                  std::to_string(shape.response_levels) +
                                                  " categories; the config says " +
                                                  std::to_string(config.model.categories));
  };
  if (cutpoints > 0) check_categories();
  if (config.model.likelihood == "categorical_logit") {
    // categorical_logit's K: its non-reference categories (alpha.k, beta.k.j) and the reference.
    std::set<std::string> categories;
    for (const auto& name : fit.names) {
      const bool a = name.compare(0, 6, "alpha.") == 0, b = name.compare(0, 5, "beta.") == 0;
      if (!a && !b) continue;
      const std::string rest = name.substr(a ? 6 : 5);
      categories.insert(rest.substr(0, rest.find('.')));
    }
    shape.response_levels = static_cast<Eigen::Index>(categories.size()) + 1;
    check_categories();
  }
  // The fit's labels (/data/levels) and the config's must be the same list: each label is read as
  // its position, so another list would read the new rows' categories differently.
  if (fit.levels != config.data.levels)
    throw config_error("/data/levels", "the fit in " + fit_dir + " was made with " +
                                           (fit.levels.empty() ? std::string("integer categories (no levels)")
                                                               : "the levels " + fit_rows_join(fit.levels)) +
                                           (config.data.levels.empty() ? std::string("; the config has none")
                                                                       : "; the config has " + fit_rows_join(config.data.levels)));
  shape.response_level_names = config.data.levels;
  models::fill_default_priors(config, shape, {});  // the layout is what matters here, not the priors
  f.model = std::make_unique<models::Model>(models::Model::build(config.model, shape));
  const models::Model& model = *f.model;
  if (model.layout().column_names() != fit.names)
    throw config_error("/model", "the fit in " + fit_dir + " has the parameters " + fit_rows_join(fit.names) +
                                     "; the config's model has " +
                                     fit_rows_join(model.layout().column_names()));
  if (!models::predict_supports(fit.likelihood))
    throw config_error("/model/likelihood", "predict does not support '" + fit.likelihood + "' yet");
  return f;
}

models::PredictionRows read_fit_rows(const FitForConfig& f, const spec::Config& config,
                                     const std::string& path, const std::string& when_dropped) {
  // The rows: the fit's variables by name (other columns are ignored), the response if there, and
  // the trials, offset and exposure columns the config names (required: they enter eta).
  const models::Likelihood& lik = f.model->likelihood();
  models::PredictionRows rows =
      models::read_prediction_rows(path, f.design, f.fit.response, config.data, lik);
  if (rows.missing > 0 && config.data.missing == "error")
    throw data_error(file_line(path, rows.first_missing_line),
                     rows.first_missing_what + "; " + std::to_string(rows.missing) + " of " +
                         std::to_string(rows.records) +
                         " rows have missing values (empty, NA or NaN) in the columns the model uses (with "
                         "/data/missing \"drop\" " +
                         when_dropped + ")");
  check_standardized_rows(f, rows);
  return rows;
}

void check_standardized_rows(const FitForConfig& f, const models::PredictionRows& rows) {
  // New rows are standardized with the training statistics (design_from_json refused a center or
  // scale that is not a finite number and a positive one), which can still push an extreme but
  // finite value out of range, as can a product of columns: refused rather than predicted as nan.
  for (Eigen::Index i = 0; i < rows.x.rows(); ++i)
    for (Eigen::Index j = 0; j < rows.x.cols(); ++j)
      if (!std::isfinite(rows.x(i, j)))
        throw data_error((std::filesystem::path(f.fit.dir) / "summary.json").string(),
                         "its standardization turns column '" +
                             f.design.columns[static_cast<std::size_t>(j)].name + "' of data row " +
                             std::to_string(rows.record[static_cast<std::size_t>(i)] + 1) +
                             " into a number that is not finite");
}

models::PredictRows predict_rows_of(const FitForConfig& f, const models::PredictionRows& rows,
                                    std::uint64_t seed) {
  const models::FitResult& fit = f.fit;
  const models::design::Design& design = f.design;
  models::PredictRows prows{rows.x};
  prows.y = rows.y.size() > 0 ? &rows.y : nullptr;
  prows.trials = rows.trials.size() ? &rows.trials : nullptr;
  prows.offset = rows.offset.size() ? &rows.offset : nullptr;
  // categorical_logit: one set of effects per non-reference category k (r_F.k.l.e, sd_F.k.e,
  // cor_F.k.i.j), each with its own new groups' draws (stream f C + c).
  const models::ParameterLayout& layout = f.model->layout();
  std::vector<std::string> cats{""};
  if (layout.categories() > 0) {
    cats.clear();
    for (int k = 1; k <= layout.categories(); ++k)
      if (k != layout.reference_category()) cats.push_back(std::to_string(k) + ".");
  }
  const auto C = static_cast<int>(cats.size());
  for (std::size_t f = 0; f < design.groups.size(); ++f) {
    const auto& g = design.groups[f];
    const auto fresh = static_cast<Eigen::Index>(rows.groups[f].new_levels.size());
    for (int c = 0; c < C; ++c) {
      const std::string& k = cats[static_cast<std::size_t>(c)];
      models::PredictGroupEffects pg;
      pg.r_column = fit_rows_column_of(fit.names, "r_" + g.ident + "." + k + "1.1");
      pg.effects = g.effects();
      pg.intercept = g.intercept;
      pg.level = &rows.groups[f].level;
      pg.slopes = &rows.groups[f].slopes;
      pg.category = layout.categories() > 0 ? c : -1;
      const Eigen::Index sd = fit_rows_column_of(fit.names, "sd_" + g.ident + "." + k + "1");
      const Eigen::Index cor = fit_rows_column_of(fit.names, "cor_" + g.ident + "." + k + "2.1");
      if (pg.r_column < 0 || sd < 0) throw std::logic_error("predict: the draws have no columns of " + g.label);
      pg.new_effects = models::draw_new_groups(fit.draws, sd, cor, pg.effects, fresh, seed,
                                               static_cast<int>(f) * C + c);
      prows.groups.push_back(std::move(pg));
    }
    if (fresh > 0)
      cli_logger().info(std::to_string(fresh) + " new groups of " + g.label + " (" +
                        rows.groups[f].new_levels[0] + (fresh > 1 ? ", ..." : "") +
                        "): their effects are drawn from the fitted population");
  }
  return prows;
}

}  // namespace bvi::cli
