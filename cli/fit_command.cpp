#include "cli/fit_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cli/common_options.hpp"
#include "cli/fit_outputs.hpp"
#include "cli/logging.hpp"
#include "cli/progress.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "inference/advi.hpp"
#include "inference/final_approximation.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "models/log_joint.hpp"
#include "models/problem.hpp"

namespace bvi::cli {

CLI::App* setup_fit(CLI::App& app, FitOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "fit", "Fit a Gaussian approximation to the posterior (ADVI); summary JSON on stdout");
  cmd->add_option("config", o.config, "Config file (JSON)")
      ->required()
      ->check(non_empty_path())
      ->type_name("CONFIG.json");
  cmd->add_option("--output", o.output, "Also write summary.json, draws.csv and elbo.csv into this folder")
      ->check(non_empty_path())
      ->type_name("DIR");
  add_threads_option(*cmd, o.threads);
  cmd->add_option("--seed", o.seed, "Random seed (overrides inference.seed)")
      ->check(CLI::Range(0LL, 9007199254740991LL))
      ->type_name("N");
  cmd->add_flag("--quiet", o.quiet, "Print nothing on stderr but errors");
  add_log_level_option(*cmd, o.log_level);
  cmd->add_flag("--composed", o.composed, "Use the generic composed AD path (for testing)")->group("");
  return cmd;
}

namespace {

const char* const kOutputFiles[] = {"draws.csv", "elbo.csv", "summary.json"};

template <class T>
int fit(const FitOptions& o, const spec::Config& parsed) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  reduce::SerialCommunicator comm;
  const int threads = resolve_threads(o.threads);
  models::Problem<T> problem = models::load_problem<T>(parsed, comm, {!o.composed, 0});
  const spec::Config& config = problem.config;
  reduce::ChunkReducer reducer(problem.plan, comm, threads);
  models::LogJoint<T> log_joint(problem.model, problem.view(), reducer);

  ProgressReporter progress(!o.quiet, ::isatty(STDERR_FILENO) == 1);
  const vi::AdviResult run = vi::run_advi(log_joint, config.inference, cli_logger(), &progress);
  progress.finish();
  const vi::FinalReport final =
      vi::report_final(log_joint, *run.q, static_cast<std::uint64_t>(config.inference.seed),
                       config.inference.final_elbo_draws, config.inference.output_draws);

  const models::ParameterLayout& layout = problem.model.layout();
  FitRecord record;
  record.config = &config;
  record.names = layout.column_names();
  record.parameters = vi::summarize_parameters(*run.q, record.names, layout.column_labels());
  record.run = &run;
  record.final = &final;
  record.constrained_draws = final.draws.zeta;  // every parameter is unconstrained so far
  record.seed = config.inference.seed;
  record.threads = threads;
  record.ranks = comm.size();
  record.rows = problem.data.total_rows;
  record.features = static_cast<long long>(problem.data.feature_names.size());

  if (!run.converged && !run.interrupted && config.inference.tol_rel_obj)
    cli_logger().warn(
        "stopped at max_iterations (" + std::to_string(run.iterations) +
        ") before the relative ELBO change fell below tol_rel_obj; the approximation may not have "
        "converged");
  if (final.pareto.k > 0.7)
    cli_logger().warn(
        "Pareto k-hat of the approximation is " + std::to_string(final.pareto.k) +
        " > 0.7: the approximation is unreliable (Yao et al. 2018); try algorithm fullrank, or check "
        "the model");

  record.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const std::string summary = summary_json(record).dump(2) + "\n";
  if (!o.output.empty()) {
    namespace fs = std::filesystem;
    // The summary last: whoever sees the new summary.json sees the draws it describes.
    write_files_atomically({{(fs::path(o.output) / kOutputFiles[0]).string(), draws_csv(record)},
                            {(fs::path(o.output) / kOutputFiles[1]).string(), elbo_csv(record)},
                            {(fs::path(o.output) / kOutputFiles[2]).string(), summary}});
  }
  if (std::fwrite(summary.data(), 1, summary.size(), stdout) != summary.size() || std::fflush(stdout) != 0)
    throw output_error("stdout", "cannot write the summary");
  return 0;
}

}  // namespace

int run_fit(const FitOptions& o) {
  setup_logging(o.log_level, o.quiet ? Verbosity::quiet : Verbosity::normal);
  spec::Config config = spec::parse_config(o.config);
  if (o.seed) {
    config.inference.seed = *o.seed;
    config.resolved["inference"]["seed"] = *o.seed;
  }
  // Fail on an unusable output folder before the work, not after it.
  if (!o.output.empty()) prepare_output_dir(o.output, {std::begin(kOutputFiles), std::end(kOutputFiles)});
  return models::with_dtype(config, [&](auto tag) { return fit<decltype(tag)>(o, config); });
}

}  // namespace bvi::cli
