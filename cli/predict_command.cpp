#include "cli/predict_command.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "cli/common_options.hpp"
#include "cli/logging.hpp"
#include "cli/number_format.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "models/data/csv_reader.hpp"
#include "models/data/dataset.hpp"
#include "models/data/standardize.hpp"
#include "models/default_priors.hpp"
#include "models/fit_result.hpp"
#include "models/model.hpp"
#include "models/prediction.hpp"
#include "models/prediction_metrics.hpp"
#include "models/prediction_rows.hpp"
#include "models/spec/config.hpp"

namespace bvi::cli {

CLI::App* setup_predict(CLI::App& app, PredictOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "predict",
      "Apply a fit (made with fit --output DIR) to rows of data: the posterior predictive expected response "
      "(P(y = 1), expected successes or count, mean) per row");
  cmd->add_option("config", o.config, "The config the fit was made with")
      ->required()
      ->check(non_empty_path())
      ->type_name("CONFIG.json");
  cmd->add_option("--fit", o.fit, "The folder fit --output wrote (summary.json, draws.csv)")
      ->required()
      ->check(non_empty_path())
      ->type_name("DIR");
  cmd->add_option("--data", o.data, "Rows to predict (default: the config's own data)")
      ->check(non_empty_path())
      ->type_name("NEW.csv");
  cmd->add_option("--draws", o.draws, "Use the first N draws of the fit (default: all)")
      ->check(CLI::Range(1L, 100000000L))
      ->type_name("N");
  cmd->add_option("--metrics", o.metrics,
                  "Also write the held-out metrics as JSON to FILE (needs the response)")
      ->check(non_empty_path())
      ->type_name("FILE");
  cmd->add_option(
         "--seed", o.seed,
         "Seed of the draws of new groups' effects (groups the fit never saw; default: the fit's seed)")
      ->check(CLI::Range(0LL, 9007199254740991LL))
      ->type_name("N");
  add_threads_option(*cmd, o.threads);
  add_log_level_option(*cmd, o.log_level);
  return cmd;
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

namespace {

// The design of a fit: the summary's, or for a fit made before designs were recorded, its
// features as numeric variables (standardized as the summary says).
models::design::Design fit_design(const models::FitResult& fit, const std::string& summary) {
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

Eigen::Index column_of(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t j = 0; j < names.size(); ++j)
    if (names[j] == name) return static_cast<Eigen::Index>(j);
  return -1;
}

}  // namespace

int run_predict(const PredictOptions& o) {
  setup_logging(o.log_level);
  spec::Config config = spec::parse_config(o.config);
  // Before the work: a --metrics file that cannot be written fails now, not after the predictions.
  if (!o.metrics.empty()) prepare_output_file(o.metrics);
  models::FitResult fit = models::read_fit(o.fit);
  const models::design::Design design = fit_design(fit, o.fit + "/summary.json");

  // The fit must be a fit of this model: the same likelihood and the same parameters.
  if (fit.likelihood != config.model.likelihood)
    throw config_error("/model/likelihood", "the fit in " + o.fit + " was made with '" + fit.likelihood +
                                                "', the config says '" + config.model.likelihood + "'");
  std::vector<std::string> terms;
  for (const auto& t : design.terms) terms.push_back(t.text);
  if (config.data.features && *config.data.features != terms)
    throw config_error("/data/features", "the fit in " + o.fit + " was made with the terms " + join(terms));
  models::ModelShape shape;
  shape.features = design.column_names();
  for (const auto& t : design.terms) shape.terms.push_back({t.text, t.first_column, t.n_columns});
  for (const auto& g : design.groups)
    shape.groups.push_back({g.ident, g.label, g.levels, g.effect_names(), g.correlated});
  models::fill_default_priors(config, shape, {});  // the layout is what matters here, not the priors
  const models::Model model = models::Model::build(config.model, shape);
  if (model.layout().column_names() != fit.names)
    throw config_error("/model", "the fit in " + o.fit + " has the parameters " + join(fit.names) +
                                     "; the config's model has " + join(model.layout().column_names()));
  if (!models::predict_supports(fit.likelihood))
    throw config_error("/model/likelihood", "predict does not support '" + fit.likelihood + "' yet");
  if (o.draws > 0 && o.draws < fit.draws.rows()) fit.draws.conservativeResize(o.draws, Eigen::NoChange);

  // The rows: the fit's variables by name (other columns are ignored), the response if there, and
  // the trials, offset and exposure columns the config names (required: they enter eta).
  const std::string path = o.data.empty() ? config.data.csv : o.data;
  const models::Likelihood& lik = model.likelihood();
  const models::PredictionRows rows =
      models::read_prediction_rows(path, design, fit.response, config.data, lik);
  if (rows.missing > 0 && config.data.missing == "error")
    throw data_error(file_line(path, rows.first_missing_line),
                     rows.first_missing_what + "; " + std::to_string(rows.missing) + " of " +
                         std::to_string(rows.records) +
                         " rows have missing values (empty, NA or NaN) in the columns the model uses (with "
                         "/data/missing \"drop\" their predictions are left empty)");
  const bool has_y = rows.y.size() > 0;
  const Eigen::Index n = rows.x.rows();
  // New rows are standardized with the training statistics (design_from_json refused a center or
  // scale that is not a finite number and a positive one), which can still push an extreme but
  // finite value out of range, as can a product of columns: refused rather than predicted as nan.
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < rows.x.cols(); ++j)
      if (!std::isfinite(rows.x(i, j)))
        throw data_error((std::filesystem::path(o.fit) / "summary.json").string(),
                         "its standardization turns column '" + design.columns[static_cast<std::size_t>(j)].name +
                             "' of data row " + std::to_string(rows.record[static_cast<std::size_t>(i)] + 1) +
                             " into a number that is not finite");

  models::PredictRows prows{rows.x};
  prows.y = has_y ? &rows.y : nullptr;
  prows.trials = rows.trials.size() ? &rows.trials : nullptr;
  prows.offset = rows.offset.size() ? &rows.offset : nullptr;
  const std::uint64_t seed = static_cast<std::uint64_t>(o.seed ? *o.seed : fit.seed);
  for (std::size_t f = 0; f < design.groups.size(); ++f) {
    const auto& g = design.groups[f];
    models::PredictGroupEffects pg;
    pg.r_column = column_of(fit.names, "r_" + g.ident + ".1.1");
    pg.effects = g.effects();
    pg.intercept = g.intercept;
    pg.level = &rows.groups[f].level;
    pg.slopes = &rows.groups[f].slopes;
    const Eigen::Index sd = column_of(fit.names, "sd_" + g.ident + ".1");
    const Eigen::Index cor = column_of(fit.names, "cor_" + g.ident + ".2.1");
    if (pg.r_column < 0 || sd < 0) throw std::logic_error("predict: the draws have no columns of " + g.label);
    const auto fresh = static_cast<Eigen::Index>(rows.groups[f].new_levels.size());
    pg.new_effects =
        models::draw_new_groups(fit.draws, sd, cor, pg.effects, fresh, seed, static_cast<int>(f));
    if (fresh > 0)
      cli_logger().info(std::to_string(fresh) + " new groups of " + g.label + " (" +
                        rows.groups[f].new_levels[0] + (fresh > 1 ? ", ..." : "") +
                        "): their effects are drawn from the fitted population");
    prows.groups.push_back(std::move(pg));
  }
  const models::Predictions pred = models::predict(fit, prows, resolve_threads(o.threads));
  const bool spread = pred.predictive_sd.size() > 0;
  std::string out = spread ? "mean,sd,q05,q95,predictive_sd\n" : "mean,sd,q05,q95\n";
  // One line per input row; a row left out for a missing value has empty fields.
  Eigen::Index k = 0;
  for (Eigen::Index r = 0; r < rows.records; ++r) {
    if (k >= n || rows.record[static_cast<std::size_t>(k)] != r) {
      out += spread ? ",,,,\n" : ",,,\n";
      continue;
    }
    const Eigen::Index i = k++;
    append_number(out, pred.mean[i]);
    out += ',';
    append_number(out, pred.sd[i]);
    out += ',';
    append_number(out, pred.q05[i]);
    out += ',';
    append_number(out, pred.q95[i]);
    if (spread) {
      out += ',';
      append_number(out, pred.predictive_sd[i]);
    }
    out += '\n';
  }
  const Eigen::VectorXd& y = rows.y;

  nlohmann::ordered_json metrics;
  std::string report;  // the metrics in one line for stderr, once the metrics file is written
  if (has_y && lik.response_kind() == models::ResponseKind::binary) {
    const models::BinaryMetrics m = models::binary_metrics(pred.mean, y, pred.lpd);
    metrics["rows"] = m.rows;
    metrics["draws"] = fit.draws.rows();
    metrics["mean_log_predictive_density"] = m.mean_lpd;
    metrics["accuracy"] = m.accuracy;
    metrics["brier"] = m.brier;
    metrics["roc_auc"] =
        std::isfinite(m.auc) ? nlohmann::ordered_json(m.auc) : nlohmann::ordered_json(nullptr);
    char line[200];
    std::snprintf(line, sizeof line,
                  "%ld rows: mean log predictive density %.6g, accuracy %.4f, Brier %.4f, ROC AUC %.4f",
                  m.rows, m.mean_lpd, m.accuracy, m.brier, m.auc);
    report = line;
  } else if (has_y) {
    const models::PointMetrics m = models::point_metrics(pred.mean, y, pred.lpd);
    metrics["rows"] = m.rows;
    metrics["draws"] = fit.draws.rows();
    metrics["mean_log_predictive_density"] = m.mean_lpd;
    metrics["rmse"] = m.rmse;
    metrics["mae"] = m.mae;
    char line[200];
    std::snprintf(line, sizeof line, "%ld rows: mean log predictive density %.6g, RMSE %.6g, MAE %.6g",
                  m.rows, m.mean_lpd, m.rmse, m.mae);
    report = line;
  } else if (!o.metrics.empty()) {
    throw data_error(file_line(path, 1), "no response column '" + fit.response + "': metrics need it");
  }
  if (!o.metrics.empty()) write_file_atomically(o.metrics, metrics.dump(2) + "\n");
  if (!report.empty()) {
    cli_logger().info(report);
    std::fprintf(stderr, "%s\n", report.c_str());
  }
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0)
    throw output_error("stdout", "cannot write the predictions");
  return 0;
}

}  // namespace bvi::cli
