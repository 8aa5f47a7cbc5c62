#include "cli/loo_command.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "bvi_version.hpp"
#include "cli/common_options.hpp"
#include "cli/logging.hpp"
#include "cli/output_paths.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "inference/reduce/collective_error.hpp"

namespace bvi::cli {

CLI::App* setup_loo(CLI::App& app, LooOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "loo",
      "PSIS leave-one-out cross-validation of a fit (made with fit --output DIR) on its config's data: "
      "elpd_loo, p_loo, looic and the Pareto k of every row");
  cmd->add_option("config", o.config, "The config the fit was made with")
      ->required()
      ->check(non_empty_path())
      ->type_name("CONFIG.json");
  cmd->add_option("--fit", o.fit, "The folder fit --output wrote (summary.json, draws.csv)")
      ->required()
      ->check(non_empty_path())
      ->type_name("DIR");
  cmd->add_option("--draws", o.draws,
                  "Use the first N draws of the fit (default: all, inference.output_draws)")
      ->check(CLI::Range(1L, 100000000L))
      ->type_name("N");
  cmd->add_option("--output", o.output, "Also write the JSON document to FILE")
      ->check(non_empty_path())
      ->type_name("FILE");
  cmd->add_option("--pointwise", o.pointwise,
                  "Write every row's elpd_loo, p_loo, looic and Pareto k as CSV to FILE (compare needs it)")
      ->check(non_empty_path())
      ->type_name("FILE");
  cmd->add_option("--subsample", o.subsample,
                  "Subsampling LOO for large data: PSIS-LOO on a simple random sample of M rows, the "
                  "difference estimator around every row's log p(y_i | mean draw) (loo_subsample)")
      ->type_name("M");
  cmd->add_option("--seed", o.seed, "Seed of the subsample (default: the config's inference.seed)")
      ->check(CLI::NonNegativeNumber)
      ->type_name("S");
  add_threads_option(*cmd, o.threads);
  add_log_level_option(*cmd, o.log_level);
  return cmd;
}

namespace {

using LooJson = nlohmann::ordered_json;

// JSON has no infinities: a non-finite number is written as null (k = -inf of a flat tail too).
LooJson loo_number(double x) {
  return std::isfinite(x) ? LooJson(x) : LooJson(nullptr);
}

std::string absolute_path(const std::string& p) {
  std::error_code ec;
  const auto a = std::filesystem::absolute(p, ec);
  return ec ? p : a.lexically_normal().string();
}

}  // namespace

LooJson loo_document(const LooRun& run, const std::string& pointwise_file) {
  const auto& t = run.totals;
  LooJson d;
  if (run.subsample > 0) {
    // The difference estimator's totals, each with its subsampling se beside the usual one
    // (loo_subsample's "subsampling SE" column).
    const auto& ss = run.subsample_totals;
    const std::pair<const char*, const diagnostics::LooSubsampleEstimate*> quantities[] = {
        {"elpd_loo", &ss.elpd_loo}, {"p_loo", &ss.p_loo}, {"looic", &ss.looic}};
    for (const auto& q : quantities) {
      d[q.first] = loo_number(q.second->estimate);
      d[std::string("se_") + q.first] = loo_number(q.second->se);
      d[std::string("subsampling_se_") + q.first] = loo_number(q.second->subsampling_se);
    }
    d["rows"] = ss.rows;
    d["draws"] = run.draws;
    d["subsample"] = {{"rows", ss.sampled},
                      {"requested", run.subsample},
                      {"seed", run.subsample_seed},
                      {"approximation", "plpd"},
                      {"estimator", "diff_srs"}};
    d["pareto_k_bands"] = {{"good", ss.good}, {"bad", ss.bad}, {"very_bad", ss.very_bad}};
  } else {
    d["elpd_loo"] = loo_number(t.elpd_loo.estimate);
    d["se_elpd_loo"] = loo_number(t.elpd_loo.se);
    d["p_loo"] = loo_number(t.p_loo.estimate);
    d["se_p_loo"] = loo_number(t.p_loo.se);
    d["looic"] = loo_number(t.looic.estimate);
    d["se_looic"] = loo_number(t.looic.se);
    d["rows"] = t.rows;
    d["draws"] = run.draws;
    d["pareto_k_bands"] = {{"good", t.good}, {"bad", t.bad}, {"very_bad", t.very_bad}};
  }
  LooJson high = LooJson::array();
  for (const LooRowValue& v : run.high_k)
    high.push_back(
        {{"row", v.row}, {"pareto_k", loo_number(v.pareto_k)}, {"elpd_loo", loo_number(v.elpd_loo)}});
  d["high_pareto_k"] = std::move(high);
  d["method"] = "psis_loo_approximate_posterior";
  d["config"] = absolute_path(run.config);
  d["fit"] = absolute_path(run.fit);
  d["likelihood"] = run.likelihood;
  d["response"] = run.response;
  d["response_hash"] = run.response_hash;
  d["row_hash"] = run.row_hash;
  d["pointwise_file"] = pointwise_file.empty() ? LooJson(nullptr) : LooJson(absolute_path(pointwise_file));
  d["version"] = kVersion;
  return d;
}

int run_loo(const LooOptions& o, reduce::Communicator& comm) {
  setup_logging(o.log_level);
  const bool root = comm.is_root();
  refuse_clashing_paths({{"--output", o.output}, {"--pointwise", o.pointwise}},
                        {{"the config", o.config},
                         {"the fit's summary.json", o.fit + "/summary.json"},
                         {"the fit's draws.csv", o.fit + "/draws.csv"}});
  // Before the work: outputs that cannot be written fail now (rank 0 writes them).
  reduce::collectively(comm, [&] {
    if (!root) return;
    if (!o.output.empty()) prepare_output_file(o.output);
    if (!o.pointwise.empty()) prepare_output_file(o.pointwise);
  });
  LooRequest req;
  req.config = o.config;
  req.fit = o.fit;
  req.draws = o.draws;
  req.threads = resolve_threads(o.threads);
  req.pointwise = root && !o.pointwise.empty();
  if (o.subsample) {
    if (*o.subsample < 2)
      throw usage_error("--subsample " + std::to_string(*o.subsample) +
                        ": must be at least 2 rows (and at most the data's rows)");
    req.subsample = *o.subsample;
  }
  if (o.seed) {
    if (!o.subsample) throw usage_error("--seed chooses the rows of --subsample M; give --subsample too");
    req.seed = static_cast<std::uint64_t>(*o.seed);
  }
  const LooRun run = compute_loo(req, comm);
  if (!root) return 0;
  const std::string text = loo_document(run, o.pointwise).dump(2) + "\n";
  std::vector<std::pair<std::string, std::string>> files;
  if (!o.pointwise.empty()) files.emplace_back(o.pointwise, loo_pointwise_csv(run.pointwise, run.subsample > 0));
  if (!o.output.empty()) files.emplace_back(o.output, text);
  if (!files.empty()) write_files_atomically(files);
  const std::int64_t high = run.subsample > 0 ? run.subsample_totals.bad + run.subsample_totals.very_bad
                                              : run.totals.bad + run.totals.very_bad;
  const std::int64_t of = run.subsample > 0 ? run.subsample_totals.sampled : run.totals.rows;
  if (high > 0)
    cli_logger().warn(std::to_string(high) + " of " + std::to_string(of) +
                      (run.subsample > 0 ? " sampled" : "") +
                      " rows have a Pareto k above 0.7: their elpd_loo is not to be trusted (with more than"
                      " a few, compare models by `bayes-vi kfold` instead)");
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw output_error("stdout", "cannot write the loo document");
  return 0;
}

}  // namespace bvi::cli
