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
#include "models/fit_result.hpp"
#include "models/model.hpp"
#include "models/prediction.hpp"
#include "models/prediction_metrics.hpp"
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

int run_predict(const PredictOptions& o) {
  setup_logging(o.log_level);
  const spec::Config config = spec::parse_config(o.config);
  // Before the work: a --metrics file that cannot be written fails now, not after the predictions.
  if (!o.metrics.empty()) prepare_output_file(o.metrics);
  models::FitResult fit = models::read_fit(o.fit);

  // The fit must be a fit of this model: the same likelihood and the same parameters.
  if (fit.likelihood != config.model.likelihood)
    throw config_error("/model/likelihood", "the fit in " + o.fit + " was made with '" + fit.likelihood +
                                                "', the config says '" + config.model.likelihood + "'");
  if (config.data.features && *config.data.features != fit.features)
    throw config_error("/data/features",
                       "the fit in " + o.fit + " was made with the features " + join(fit.features));
  const models::Model model = models::Model::build(config.model, fit.features);
  if (model.layout().column_names() != fit.names)
    throw config_error("/model", "the fit in " + o.fit + " has the parameters " + join(fit.names) +
                                     "; the config's model has " + join(model.layout().column_names()));
  if (!models::predict_supports(fit.likelihood))
    throw config_error("/model/likelihood", "predict does not support '" + fit.likelihood + "' yet");
  if (o.draws > 0 && o.draws < fit.draws.rows()) fit.draws.conservativeResize(o.draws, Eigen::NoChange);

  // The rows: the fit's features by name (extra columns are ignored), the response if there,
  // and the trials, offset and exposure columns the config names (required: they enter eta).
  const std::string path = o.data.empty() ? config.data.csv : o.data;
  data::CsvReader reader(path);
  std::unordered_map<std::string, int> where;
  for (int i = 0; i < static_cast<int>(reader.columns().size()); ++i) where.emplace(reader.columns()[i], i);
  std::vector<int> columns;
  for (const auto& f : fit.features) {
    auto it = where.find(f);
    if (it == where.end())
      throw data_error(file_line(path, 1), "no column '" + f + "', a feature the fit was made with (" +
                                               std::to_string(fit.features.size()) +
                                               " features: " + join(fit.features) + ")");
    columns.push_back(it->second);
  }
  std::vector<data::ExtraColumn> extras;
  auto add_extra = [&](const std::optional<std::string>& name, const char* role, data::ResponseCheck check) {
    if (!name) return -1;
    auto it = where.find(*name);
    if (it == where.end())
      throw data_error(file_line(path, 1), "no " + std::string(role) + " column '" + *name + "', which " +
                                               fit.likelihood + " needs for every row");
    extras.push_back({it->second, std::move(check)});
    return static_cast<int>(extras.size()) - 1;
  };
  const int trials_slot = add_extra(config.data.trials, "trials", data::check_trials);
  const int offset_slot = add_extra(config.data.offset, "offset", {});
  const int exposure_slot = add_extra(config.data.exposure, "exposure", data::check_exposure);
  const auto response = where.find(fit.response);
  const bool has_y = response != where.end();
  const Eigen::Index n = reader.scan().records;
  if (n == 0) throw data_error(file_line(path, reader.first_data_line()), "no data rows");
  data::RowMatrix<double> x(n, static_cast<Eigen::Index>(columns.size()));
  Eigen::VectorXd y(has_y ? n : 0);
  data::RowMatrix<double> extra_values(n, static_cast<Eigen::Index>(extras.size()));
  const models::Likelihood& lik = model.likelihood();
  data::RowCheck row_check;
  if (trials_slot >= 0)
    row_check = [&lik, trials_slot](double v, const double* e) {
      return lik.check_response(v, e[trials_slot]);
    };
  reader.read_rows<double>(
      0, n, columns, has_y ? response->second : -1, [&lik](double v) { return lik.check_response(v); },
      extras, row_check, x.data(), has_y ? y.data() : nullptr, extra_values.data());
  // New rows are standardized with the training statistics, never their own.
  if (fit.center.size() > 0) {
    data::apply_standardization(x, fit.center, fit.scale);
    // A center and scale from a summary.json can push a finite value out of range.
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index j = 0; j < x.cols(); ++j)
        if (!std::isfinite(x(i, j)))
          throw data_error((std::filesystem::path(o.fit) / "summary.json").string(),
                           "its standardization turns feature '" + fit.features[static_cast<std::size_t>(j)] +
                               "' of data row " + std::to_string(i + 1) +
                               " into a number that is not finite");
  }
  Eigen::VectorXd trials, offset;
  if (trials_slot >= 0) trials = extra_values.col(trials_slot);
  if (offset_slot >= 0 || exposure_slot >= 0) {
    offset = Eigen::VectorXd::Zero(n);
    if (offset_slot >= 0) offset += extra_values.col(offset_slot);
    if (exposure_slot >= 0)
      for (Eigen::Index i = 0; i < n; ++i) offset[i] += std::log(extra_values(i, exposure_slot));
  }

  models::PredictRows rows{x};
  rows.y = has_y ? &y : nullptr;
  rows.trials = trials.size() ? &trials : nullptr;
  rows.offset = offset.size() ? &offset : nullptr;
  const models::Predictions pred = models::predict(fit, rows, resolve_threads(o.threads));
  const bool spread = pred.predictive_sd.size() > 0;
  std::string out = spread ? "mean,sd,q05,q95,predictive_sd\n" : "mean,sd,q05,q95\n";
  for (Eigen::Index i = 0; i < n; ++i) {
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
