#include "cli/predict_command.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "cli/common_options.hpp"
#include "cli/fit_rows.hpp"
#include "cli/logging.hpp"
#include "cli/output_paths.hpp"
#include "cli/number_format.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "models/categorical_prediction.hpp"
#include "models/data/csv_reader.hpp"
#include "models/data/dataset.hpp"
#include "models/data/standardize.hpp"
#include "models/default_priors.hpp"
#include "models/fit_result.hpp"
#include "models/model.hpp"
#include "models/ordinal_prediction.hpp"
#include "models/prediction.hpp"
#include "models/prediction_metrics.hpp"
#include "models/prediction_rows.hpp"
#include "models/replicates.hpp"
#include "models/spec/config.hpp"

namespace bvi::cli {

namespace {

// A metric undefined for these rows (NaN: no row weighs anything, or an AUC with one class) is
// null in the metrics JSON and n/a in the one-line report, never a 0 that reads as a score.
nlohmann::ordered_json metric_json(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}
std::string metric_text(const char* format, double v) {
  if (std::isnan(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// CmdStan's generated-quantities layout, which bayesplot (as.matrix(read.csv(FILE))) and ArviZ
// (np.loadtxt(FILE, delimiter=",", skiprows=1)) take as the draws x rows matrix of y_rep.
std::string replicates_csv(const Eigen::MatrixXd& y_rep, const std::vector<Eigen::Index>& record,
                           bool integers) {
  std::string out;
  for (std::size_t i = 0; i < record.size(); ++i)
    out += (i ? ",y_rep." : "y_rep.") + std::to_string(record[i] + 1);
  out += '\n';
  char buf[32];
  for (Eigen::Index r = 0; r < y_rep.rows(); ++r) {
    for (Eigen::Index i = 0; i < y_rep.cols(); ++i) {
      if (i) out += ',';
      if (integers) {
        const int len = std::snprintf(buf, sizeof buf, "%.0f", y_rep(r, i));
        out.append(buf, static_cast<size_t>(len));
      } else {
        append_number(out, y_rep(r, i));
      }
    }
    out += '\n';
  }
  return out;
}

void write_predict_outputs(const PredictOptions& o, const nlohmann::ordered_json& metrics, const std::string& report,
                           const std::string& out) {
  if (!o.metrics.empty()) write_file_atomically(o.metrics, metrics.dump(2) + "\n");
  if (!report.empty()) {
    cli_logger().info(report);
    std::fprintf(stderr, "%s\n", report.c_str());
  }
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0)
    throw output_error("stdout", "cannot write the predictions");
}

// A CSV field as RFC 4180 writes it: quoted (its quotes doubled) when it holds a comma, a quote,
// a line break or surrounding spaces.
std::string csv_field(const std::string& text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The per-category predictions as CSV, one line per record of the input: p_1 ... p_K (the mean
// over draws) and the most probable category; a row left out (dropped, missing) has empty
// fields. With labels (/data/levels) the columns and categories are named by them.
std::string category_table_csv(const models::OrdinalPredictions& pred, const models::PredictionRows& rows,
                               const std::vector<std::string>& labels) {
  const Eigen::Index K = pred.prob.cols(), n = rows.x.rows();
  const bool named = static_cast<Eigen::Index>(labels.size()) == K;
  std::string out;
  for (Eigen::Index k = 0; k < K; ++k)
    out += csv_field("p_" + (named ? labels[static_cast<std::size_t>(k)] : std::to_string(k + 1))) + ",";
  out += "category\n";
  Eigen::Index i = 0;
  for (Eigen::Index r = 0; r < rows.records; ++r) {
    if (i >= n || rows.record[static_cast<std::size_t>(i)] != r) {
      out += std::string(static_cast<std::size_t>(K), ',') + "\n";
      continue;
    }
    for (Eigen::Index k = 0; k < K; ++k) {
      append_number(out, pred.prob(i, k));
      out += ',';
    }
    out += (named ? csv_field(labels[static_cast<std::size_t>(pred.category[i]) - 1])
                  : std::to_string(pred.category[i])) +
           "\n";
    ++i;
  }
  return out;
}

// The metrics of per-category predictions into `metrics` (rows, draws, log loss, accuracy, the
// third score under `key`, whether weighted), and their one-line report.
std::string category_metrics_json(nlohmann::ordered_json& metrics, const models::CategoryMetrics& m, const char* key,
                                  const char* name, Eigen::Index draws, const Eigen::VectorXd* weight,
                                  const std::string& weights_column) {
  metrics["rows"] = m.rows;
  metrics["draws"] = draws;
  metrics["log_loss"] = metric_json(m.log_loss);
  metrics["accuracy"] = metric_json(m.accuracy);
  metrics[key] = metric_json(m.score);
  metrics["weighted"] = weight != nullptr;
  if (weight) metrics["weight_sum"] = weight->sum();
  std::string report = std::to_string(m.rows) + " rows: log loss " + metric_text("%.6g", m.log_loss) +
                       ", accuracy " + metric_text("%.4f", m.accuracy) + ", " + name + " " +
                       metric_text("%.4f", m.score);
  if (weight) report += " (weighted by " + weights_column + ")";
  return report;
}

// The ordinal likelihoods' predictions: one probability column per category p_1 ... p_K (the mean
// over draws), the most probable category; metrics log loss, accuracy and the ranked probability
// score (models/ordinal_prediction.hpp).
int predict_ordinal_rows(const PredictOptions& o, const models::FitResult& fit, const models::PredictionRows& rows,
                         const models::PredictRows& prows, const std::string& path, Eigen::Index replicates,
                         const std::string& weights_column) {
  const int threads = resolve_threads(o.threads);
  const std::uint64_t seed = static_cast<std::uint64_t>(o.seed ? *o.seed : fit.seed);
  const models::OrdinalPredictions pred = models::predict_ordinal(fit, prows, threads);
  if (replicates > 0)
    write_file_atomically(o.replicates.second,
                          replicates_csv(models::replicate_ordinal(fit, prows, rows.record, replicates, seed, threads),
                                         rows.record, true));
  // With /data/levels the columns and categories are named by the labels (p_poor, ..., category
  // "good"); the replicates stay category numbers 1 ... K (their position in the list).
  const std::string out = category_table_csv(pred, rows, fit.levels);
  nlohmann::ordered_json metrics;
  std::string report;
  if (rows.y.size() > 0) {
    // Weighted metrics when the fit had a weights column and these rows have it too.
    const Eigen::VectorXd* weight = rows.weight.size() ? &rows.weight : nullptr;
    const models::OrdinalMetrics m = models::ordinal_metrics(pred, rows.y, weight);
    report = category_metrics_json(metrics, {m.rows, m.log_loss, m.accuracy, m.rps}, "ranked_probability_score",
                                   "ranked probability score", fit.draws.rows(), weight, weights_column);
  } else if (!o.metrics.empty()) {
    throw data_error(file_line(path, 1), "no response column '" + fit.response + "': metrics need it");
  }
  write_predict_outputs(o, metrics, report, out);
  return 0;
}

// categorical_logit's predictions: p_1 ... p_K and the most probable category, as the ordinal
// likelihoods' (the same columns); metrics log loss, accuracy and the multi-class Brier score
// (models/categorical_prediction.hpp).
int predict_categorical_rows(const PredictOptions& o, const models::FitResult& fit, const models::Model& model,
                             const models::PredictionRows& rows, const models::PredictRows& prows,
                             const std::string& path, Eigen::Index replicates, const std::string& weights_column) {
  const int threads = resolve_threads(o.threads);
  const std::uint64_t seed = static_cast<std::uint64_t>(o.seed ? *o.seed : fit.seed);
  const int K = model.layout().categories(), ref = model.layout().reference_category();
  const models::OrdinalPredictions pred = models::predict_categorical(fit, prows, K, ref, threads);
  if (replicates > 0)
    write_file_atomically(
        o.replicates.second,
        replicates_csv(models::replicate_categorical(fit, prows, rows.record, replicates, seed, K, ref, threads),
                       rows.record, true));
  const std::string out = category_table_csv(pred, rows, fit.levels);
  nlohmann::ordered_json metrics;
  std::string report;
  if (rows.y.size() > 0) {
    const Eigen::VectorXd* weight = rows.weight.size() ? &rows.weight : nullptr;
    const models::CategoricalMetrics m = models::categorical_metrics(pred, rows.y, weight);
    report = category_metrics_json(metrics, {m.rows, m.log_loss, m.accuracy, m.brier}, "brier_score", "Brier score",
                                   fit.draws.rows(), weight, weights_column);
  } else if (!o.metrics.empty()) {
    throw data_error(file_line(path, 1), "no response column '" + fit.response + "': metrics need it");
  }
  write_predict_outputs(o, metrics, report, out);
  return 0;
}

}  // namespace

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
  cmd->add_option("--replicates", o.replicates,
                  "Also write N replicated datasets y_rep to FILE (CSV: a row per replicate, from the fit's "
                  "first N draws; columns y_rep.I for data row I), for posterior predictive checks")
      ->type_name("N FILE");
  cmd->add_option("--seed", o.seed,
                  "Seed of the draws of new groups' effects and of the replicates (default: the fit's seed)")
      ->check(CLI::Range(0LL, 9007199254740991LL))
      ->type_name("N");
  add_threads_option(*cmd, o.threads);
  add_log_level_option(*cmd, o.log_level);
  return cmd;
}

int run_predict(const PredictOptions& o) {
  setup_logging(o.log_level);
  spec::Config config = spec::parse_config(o.config);
  refuse_clashing_paths({{"--metrics", o.metrics}, {"--replicates", o.replicates.second}},
                        {{"the config", o.config},
                         {"the data", o.data.empty() ? config.data.csv : o.data},
                         {"the fit's summary.json", o.fit + "/summary.json"},
                         {"the fit's draws.csv", o.fit + "/draws.csv"}});
  // Before the work: a --metrics file that cannot be written fails now, not after the predictions.
  if (!o.metrics.empty()) prepare_output_file(o.metrics);
  const Eigen::Index replicates = o.replicates.first;
  if (!o.replicates.second.empty() || replicates != 0) {
    if (replicates < 1 || replicates > 100000000)
      throw usage_error("--replicates: N must be a number of replicates from 1 to 100000000, not " +
                        std::to_string(o.replicates.first));
    if (o.replicates.second.empty()) throw usage_error("--replicates: FILE must not be empty");
    prepare_output_file(o.replicates.second);
  }
  FitForConfig applied = load_fit_for_config(config, o.fit);
  models::FitResult& fit = applied.fit;
  const models::Likelihood& lik = applied.model->likelihood();
  if (o.draws > 0 && o.draws < fit.draws.rows()) fit.draws.conservativeResize(o.draws, Eigen::NoChange);
  if (replicates > fit.draws.rows())
    throw usage_error("--replicates " + std::to_string(replicates) + ": predict uses " +
                      std::to_string(fit.draws.rows()) + " draws of the fit in " + o.fit +
                      ", one per replicate (fit with a larger inference.output_draws for more)");

  // The rows: the fit's variables by name (other columns are ignored), the response if there, and
  // the trials, offset and exposure columns the config names (required: they enter eta).
  const std::string path = o.data.empty() ? config.data.csv : o.data;
  const models::PredictionRows rows =
      read_fit_rows(applied, config, path, "their predictions are left empty");
  const bool has_y = rows.y.size() > 0;
  const Eigen::Index n = rows.x.rows();
  const models::PredictRows prows =
      predict_rows_of(applied, rows, static_cast<std::uint64_t>(o.seed ? *o.seed : fit.seed));
  if (models::is_ordinal(fit.likelihood))
    return predict_ordinal_rows(o, fit, rows, prows, path, replicates, config.data.weights.value_or(""));
  if (fit.likelihood == "categorical_logit")
    return predict_categorical_rows(o, fit, *applied.model, rows, prows, path, replicates,
                                    config.data.weights.value_or(""));
  const models::Predictions pred = models::predict(fit, prows, resolve_threads(o.threads));
  if (replicates > 0) {
    // Replicate r from the fit's draw r.
    std::string text;
    try {
      const Eigen::MatrixXd y_rep = models::replicate_rows(
          fit, prows, rows.record, replicates, static_cast<std::uint64_t>(o.seed ? *o.seed : fit.seed),
          resolve_threads(o.threads));
      const models::ResponseKind kind = lik.response_kind();
      text = replicates_csv(y_rep, rows.record,
                            kind == models::ResponseKind::binary || kind == models::ResponseKind::count);
    } catch (const std::domain_error& e) {
      throw inference_error("--replicates", std::string("cannot draw a replicate: ") + e.what());
    }
    write_file_atomically(o.replicates.second, text);
  }
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
  // Weighted metrics when the fit had a weights column and these rows have it too.
  const Eigen::VectorXd* weight = rows.weight.size() ? &rows.weight : nullptr;
  auto add_weights = [&](nlohmann::ordered_json& j) {
    j["weighted"] = weight != nullptr;
    if (weight) j["weight_sum"] = weight->sum();
  };
  std::string report;  // the metrics in one line for stderr, once the metrics file is written
  if (has_y && lik.response_kind() == models::ResponseKind::binary) {
    const models::BinaryMetrics m = models::binary_metrics(pred.mean, y, pred.lpd, weight);
    metrics["rows"] = m.rows;
    metrics["draws"] = fit.draws.rows();
    add_weights(metrics);
    metrics["mean_log_predictive_density"] = metric_json(m.mean_lpd);
    metrics["accuracy"] = metric_json(m.accuracy);
    metrics["brier"] = metric_json(m.brier);
    metrics["roc_auc"] = metric_json(m.auc);
    report = std::to_string(m.rows) + " rows: mean log predictive density " + metric_text("%.6g", m.mean_lpd) +
             ", accuracy " + metric_text("%.4f", m.accuracy) + ", Brier " + metric_text("%.4f", m.brier) +
             ", ROC AUC " + metric_text("%.4f", m.auc);
  } else if (has_y) {
    const models::PointMetrics m = models::point_metrics(pred.mean, y, pred.lpd, weight);
    metrics["rows"] = m.rows;
    metrics["draws"] = fit.draws.rows();
    add_weights(metrics);
    metrics["mean_log_predictive_density"] = metric_json(m.mean_lpd);
    metrics["rmse"] = metric_json(m.rmse);
    metrics["mae"] = metric_json(m.mae);
    report = std::to_string(m.rows) + " rows: mean log predictive density " + metric_text("%.6g", m.mean_lpd) +
             ", RMSE " + metric_text("%.6g", m.rmse) + ", MAE " + metric_text("%.6g", m.mae);
  } else if (!o.metrics.empty()) {
    throw data_error(file_line(path, 1), "no response column '" + fit.response + "': metrics need it");
  }
  if (weight && !report.empty()) report += " (weighted by " + *config.data.weights + ")";
  write_predict_outputs(o, metrics, report, out);
  return 0;
}

}  // namespace bvi::cli
