#include "cli/fit_command.hpp"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/common_options.hpp"
#include "cli/dropped_rows.hpp"
#include "cli/fit_outputs.hpp"
#include "cli/logging.hpp"
#include "cli/preflight.hpp"
#include "cli/run_control.hpp"
#include "cli/signals.hpp"
#include "cli/sparse_fill.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/number_text.hpp"
#include "inference/advi.hpp"
#include "inference/checkpoint.hpp"
#include "inference/exact/exact_cost.hpp"
#include "inference/exact/exact_vi.hpp"
#include "inference/final_approximation.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "inference/reduce/collective_error.hpp"
#include "inference/sparse/hessian_probes.hpp"
#include "models/crossed_curvature.hpp"
#include "models/expected_log_joint.hpp"
#include "models/expected_prior_part.hpp"
#include "models/log_joint.hpp"
#include "models/problem.hpp"
#include "models/response_hash.hpp"
#include "models/sparse_pattern.hpp"

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
  cmd->add_option("--checkpoint", o.checkpoint,
                  "Write the run state to FILE every --checkpoint-every iterations and on SIGTERM/SIGINT "
                  "(atomically), so the run can continue with --resume")
      ->check(non_empty_path())
      ->type_name("FILE");
  cmd->add_option("--checkpoint-every", o.checkpoint_every, "Iterations between checkpoints")
      ->check(CLI::Range(1L, 1000000000L))
      ->type_name("N")
      ->capture_default_str();
  cmd->add_option("--resume", o.resume,
                  "Continue the run saved in FILE by --checkpoint (same config and data)")
      ->check(non_empty_path())
      ->type_name("FILE");
  cmd->add_flag("--skip-memory-check", o.skip_memory_check,
                "Run even when the estimated peak memory exceeds what the process may use (also: "
                "BAYES_VI_SKIP_MEMORY_CHECK=1)");
  cmd->add_flag("--composed", o.composed, "Use the generic composed AD path (for testing)")->group("");
  return cmd;
}

namespace {

const char* const kOutputFiles[] = {"draws.csv", "elbo.csv", "summary.json"};

// A column read as categorical without being declared (some of its values are not numbers) makes
// a model the config does not spell out: said once, as check shows it, so a batch job's log does.
void note_undeclared_categorical(const models::design::Design& design) {
  for (const auto& v : design.variables)
    if (v.categorical && v.kind_from_data)
      cli_logger().info("column '" + v.name + "' is read as categorical (not all its values are numbers): " +
                        std::to_string(v.levels.size()) + (v.levels.size() == 1 ? " level" : " levels") +
                        "; list it in /data/categorical to say so");
}

template <class T>
int fit(const FitOptions& o, const spec::Config& parsed, int threads, FitPreflight& pre,
        reduce::Communicator& comm) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const bool root = comm.is_root();
  models::Problem<T> problem = models::load_problem<T>(parsed, comm, {!o.composed, 0, threads});
  const spec::Config& config = problem.config;
  reduce::ChunkReducer reducer(problem.plan, comm, threads);
  models::LogJoint<T> log_joint(problem.model, problem.view(), reducer);

  // The sparse family's precision pattern (the same on every rank: a collective).
  std::shared_ptr<const vi::BlockPattern> pattern;
  if (config.inference.algorithm == "sparse") {
    pattern = models::make_block_pattern(problem.model, problem.view(), comm);
    // The Monte Carlo method's step needs factors that are not crossed, or a likelihood that gives
    // their entries (sparse_fill.hpp); then the
    // factor's fill-in against the budget: auto falls back to structured (meanfield under the
    // Monte Carlo method).
    if (reduce::collectively(comm, [&] {
          return fall_back_from_crossed(problem.config, *pattern, problem.data.total_rows,
                                        models::crossed_curvature_fits(problem.model));
        })) {
      pattern.reset();
      if (root)
        cli_logger().warn("the Monte Carlo method's sparse family does not take crossed factors; fitting " +
                          config.inference.algorithm + " instead (" + config.inference.algorithm_reason +
                          ")");
    } else {
      const SparseFill fill =
          judge_sparse_fill(*pattern, pre.memory, memory_check_skipped(o.skip_memory_check),
                            sparse_factors_held(problem.config), comm);
      if (reduce::collectively(comm, [&] { return fall_back_from_sparse(problem.config, fill); })) {
        pattern.reset();
        if (root)
          cli_logger().warn("the sparse family does not fit: " + fill.why_not + "; fitting " +
                            config.inference.algorithm + " instead");
      }
    }
  }
  // A checkpoint belongs to one config, seed and dataset: preflight_fit took the run's fingerprint
  // and matched --resume against it before the data was read. The state's sizes depend on the
  // model as loaded (its levels and groups, the automatic family), so they are checked now,
  // before the first iteration uses them.
  reduce::collectively(comm, [&] {
    if (problem.data.file_rows != pre.records)
      throw data_error(problem.data.path,
                       "changed while it was being read (it has " + std::to_string(problem.data.file_rows) +
                           " rows, " + std::to_string(pre.records) + " a moment ago)");
    if (pre.resume)
      vi::check_resumable(*pre.resume, config.inference, problem.model.dim(), o.resume,
                          pattern ? pattern->size() : 0);
  });
  const std::string& fingerprint = pre.fingerprint;
  const std::optional<vi::AdviState>& resume = pre.resume;

  warn_dropped_rows(problem.data, root);
  if (root) note_undeclared_categorical(problem.design);
  // Every rank runs the same loop; rank 0 alone reports and writes.
  RunControl control(!o.quiet && root, ::isatty(STDERR_FILENO) == 1, comm, o.checkpoint, fingerprint);
  install_stop_signals();
  vi::RunOptions run_options;
  run_options.checkpoint_every = o.checkpoint.empty() ? 0 : o.checkpoint_every;
  run_options.resume = resume ? &*resume : nullptr;
  run_options.sparse_pattern = pattern;
  const auto seed = static_cast<std::uint64_t>(config.inference.seed);
  vi::AdviResult run;
  std::optional<vi::ExactResult> exact;
  std::vector<std::pair<std::string, std::string>> prior_methods;
  if (config.inference.method == "exact") {
    models::ExpectedLogJoint<T> expected(problem.model, problem.view(), reducer, seed);
    if (pattern) expected.set_sparse_pattern(pattern);
    if (root) {
      const auto linear =
          static_cast<double>(problem.data.feature_names.size() + (config.model.intercept ? 1 : 0));
      double effects = 0;
      for (const auto& g : problem.data.groups) effects += double(g.effects());
      const vi::ExactCost cost =
          pattern ? vi::sparse_exact_cost(double(problem.data.total_rows), linear, double(problem.model.dim()),
                                          effects, double(pattern->size()))
                  : vi::exact_cost(double(problem.data.total_rows), linear, double(problem.model.dim()),
                                   config.inference.algorithm == "fullrank");
      cli_logger().info("exact method, " + config.inference.algorithm + " (" + config.inference.algorithm_reason +
                        "): " + cost.describe());
    }
    vi::ExactOptions eo;
    eo.dense = config.inference.algorithm == "fullrank";
    eo.structured = config.inference.algorithm == "structured";
    eo.sparse = config.inference.algorithm == "sparse";
    eo.max_iterations = config.inference.max_iterations;
    eo.tol_grad = config.inference.tol_grad;
    eo.tol_rel_obj = config.inference.tol_rel_obj;
    // Constrained coordinates (log, logit scales) move by at most 1 per iteration.
    eo.max_mean_step = problem.model.max_mean_step();
    exact = vi::run_exact(expected, expected.initial_mean(), eo, cli_logger(), &control, run_options);
    run = std::move(exact->run);
    prior_methods = expected.prior().methods();
  } else {
    // The sparse family's step samples the likelihood alone where the prior's expectation has a
    // closed form (models/expected_prior_part.hpp), else the whole log density.
    std::optional<models::LogJoint<T>> likelihood;
    std::optional<models::ExpectedPriorPart> prior;
    std::optional<models::CrossedCurvature<T>> crossed;
    if (pattern && !vi::HessianProbes::crossed_pairs(*pattern).empty()) {
      crossed.emplace(problem.model, problem.view(), reducer, pattern);
      run_options.sparse_crossed = &*crossed;
    }
    if (pattern && models::sparse_family_fits(problem.model)) {
      models::LogJointOptions lo;
      lo.prior = false;
      lo.sampled_prior_terms = problem.model.block_prior_terms();
      likelihood.emplace(problem.model, problem.view(), reducer, lo);
      prior.emplace(problem.model, seed, lo.sampled_prior_terms);
      run_options.sparse_likelihood = &*likelihood;
      run_options.sparse_prior = &*prior;
      prior_methods = prior->prior().methods();
    }
    run = vi::run_advi(log_joint, config.inference, cli_logger(), &control, run_options);
  }
  control.finish();
  if (run.interrupted) {
    const int sig = control.signal();
    const std::string name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    const std::string after = "stopped by " + name + " after iteration " + std::to_string(run.iterations);
    throw Error(
        sig == SIGINT ? ExitCode::interrupted : ExitCode::terminated, "signal",
        o.checkpoint.empty()
            ? after + "; nothing was written (use --checkpoint FILE to be able to resume)"
            : after + "; the state is in " + o.checkpoint + " (continue with --resume " + o.checkpoint + ")")
        .mark_collective();
  }
  const models::ParameterLayout& layout = problem.model.layout();
  const bool elbo_from_output =
      vi::elbo_from_output_draws(!exact, config.inference.final_elbo_automatic, config.inference.optimizer.name,
                                 config.inference.output_draws, layout.has_block_transform());
  // A correlation block's transform is not one column's: its summaries come from draws of Omega
  // (the Monte Carlo ELBO's draws, or the exact method's output draws). So do an ordered block's
  // (the ordinal likelihoods' cutpoints).
  std::vector<ad::ColumnTransform> transforms = layout.column_transforms();
  std::vector<Eigen::Index> correlations;
  for (std::size_t j = 0; j < transforms.size(); ++j)
    if (ad::is_block_transform(transforms[j])) {
      transforms[j] = {};
      correlations.push_back(static_cast<Eigen::Index>(j));
    }
  // Which columns of the output draws are kept: every one for draws.csv; without --output, only
  // the blocks' columns where their summaries come from the output draws (every column of a
  // block is listed, so the range holds whole blocks), or none.
  const bool summaries_from_output = exact || elbo_from_output;
  vi::KeptColumns kept = vi::KeptColumns::all();
  if (o.output.empty())
    kept = correlations.empty() || !summaries_from_output
               ? vi::KeptColumns::none()
               : vi::KeptColumns{correlations.front(), correlations.back() - correlations.front() + 1};
  const vi::FinalReport final =
      exact ? vi::report_final_exact(log_joint, *run.q, seed, exact->elbo, exact->elbo_se,
                                     config.inference.final_elbo_draws, config.inference.output_draws, kept)
      : elbo_from_output
          ? vi::report_final_from_output(log_joint, *run.q, seed, config.inference.output_draws, kept)
          : vi::report_final(log_joint, *run.q, seed, config.inference.final_elbo_draws,
                             config.inference.output_draws, kept);

  FitRecord record;
  record.config = &config;
  record.names = layout.column_names();
  record.parameters = vi::summarize_parameters(*run.q, record.names, layout.column_labels(), transforms);
  // Outputs show correlations as Omega's entries (cor_F.i.j), not the Cholesky factor's. The
  // output draws on that scale are only written with --output (S x P values, each a transform:
  // as long as drawing them); the correlations' summaries reuse them where they come from them.
  if (!o.output.empty()) record.constrained_draws = problem.model.output_values(final.draws.zeta);
  if (!correlations.empty()) {
    if (final.elbo_draws.rows() == 0 && !o.output.empty())
      summarize_from_draws(record.parameters, record.constrained_draws, correlations);
    else {
      const Eigen::Index first = correlations.front(), n = correlations.back() - first + 1;
      summarize_from_draws(
          record.parameters,
          final.elbo_draws.rows() > 0
              ? problem.model.output_values(final.elbo_draws, first, n)
              : problem.model.output_columns(final.draws.zeta.middleCols(first - final.draws.zeta_first, n), first),
          correlations, first);
    }
  }
  if (exact) {
    record.passes = exact->passes;
    record.grad_residual = exact->grad_residual;
  }
  record.prior_methods = prior_methods;
  record.run = &run;
  record.final = &final;
  record.seed = config.inference.seed;
  record.threads = threads;
  record.ranks = comm.size();
  record.rows = problem.data.total_rows;
  record.features = static_cast<long long>(problem.data.feature_names.size());
  record.feature_names = problem.data.feature_names;
  record.response = problem.data.response_name;
  record.center = problem.data.center;
  record.scale = problem.data.scale;
  record.design = &problem.design;
  record.dropped_rows = problem.data.dropped_rows;
  {
    // The responses' fingerprint, over every rank's rows (collectives: every rank is here). The
    // row hash needs each row's index among the rows used: a rank holds a contiguous range of
    // chunks, ranks in row order (reduce::ShardPlan), so its rows come after the kept rows of the
    // ranks before it (an exclusive scan of the kept counts; not first_row, which counts the
    // records dropped for missing values too).
    const int ranks = comm.size();
    std::vector<long> kept(static_cast<std::size_t>(ranks), 0);
    kept[static_cast<std::size_t>(comm.rank())] = static_cast<long>(problem.data.y.size());
    comm.allreduce_sum(kept.data(), ranks);
    long before = 0;
    for (int r = 0; r < comm.rank(); ++r) before += kept[static_cast<std::size_t>(r)];
    models::ResponseHash yh;
    for (Eigen::Index i = 0; i < problem.data.y.size(); ++i) yh.add(problem.data.y[i], before + static_cast<long>(i));
    long sums[5] = {yh.rows, yh.low, yh.high, yh.row_low, yh.row_high};
    comm.allreduce_sum(sums, 5);
    yh.rows = sums[0];
    yh.low = sums[1];
    yh.high = sums[2];
    yh.row_low = sums[3];
    yh.row_high = sums[4];
    record.response_hash = yh.text();
    record.row_hash = yh.row_text();
  }
  {
    std::error_code ec;
    const auto config_path = std::filesystem::absolute(o.config, ec);
    record.config_path = ec ? o.config : config_path.lexically_normal().string();
  }
  // The standardization per feature, as summaries have always had it, when the features are the
  // numeric variables themselves (the design block has it per variable in every case).
  if (config.data.standardize && problem.design.columns.size() == problem.design.variables.size()) {
    record.center.resize(static_cast<Eigen::Index>(problem.design.columns.size()));
    record.scale.resize(record.center.size());
    for (std::size_t j = 0; j < problem.design.columns.size(); ++j) {
      const auto& f = problem.design.columns[j].factors;
      if (f.size() != 1 || f[0].level >= 0) {
        record.center.resize(0);
        record.scale.resize(0);
        break;
      }
      const auto& v = problem.design.variables[static_cast<std::size_t>(f[0].variable)];
      record.center[static_cast<Eigen::Index>(j)] = v.center;
      record.scale[static_cast<Eigen::Index>(j)] = v.scale;
    }
  }


  if (root && exact && !run.converged)
    cli_logger().warn("the exact optimizer stopped at iteration " + std::to_string(run.iterations) +
                      " before its fixed-point residual fell below tol_grad (" +
                      shortest_text(exact->grad_residual) +
                      " left); the approximation may not be at its optimum");
  if (root && !exact && !run.converged && !run.interrupted && config.inference.tol_rel_obj)
    cli_logger().warn(
        "stopped at max_iterations (" + std::to_string(run.iterations) +
        ") before the relative ELBO change fell below tol_rel_obj; the approximation may not have "
        "converged");
  if (root && final.pareto.k > 0.7) {
    // k-hat compares q with the posterior in all P dimensions at once and grows with P: with
    // thousands of group effects it flags nearly every Gaussian approximation.
    const auto P = problem.model.dim();
    const std::string advice = config.inference.algorithm != "fullrank" && P <= 2000
                                   ? "try algorithm fullrank, or check the model"
                                   : "with P = " + std::to_string(P) +
                                         " parameters this is expected of any Gaussian approximation; "
                                         "check the model, or fit a subset with algorithm fullrank";
    cli_logger().warn("Pareto k-hat of the approximation is " + std::to_string(final.pareto.k) +
                      " > 0.7: the approximation is unreliable (Yao et al. 2018); " + advice);
  }

  record.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  reduce::collectively(comm, [&] {
    if (!root) return;
    const std::string summary = summary_json(record).dump(2) + "\n";
    if (!o.output.empty()) {
      namespace fs = std::filesystem;
      // The summary last: whoever sees the new summary.json sees the draws it describes. Moved
      // into the list, not copied (a braced list would copy draws.csv, the largest text, once more).
      std::vector<std::pair<std::string, std::string>> files;
      files.emplace_back((fs::path(o.output) / kOutputFiles[0]).string(), draws_csv(record));
      files.emplace_back((fs::path(o.output) / kOutputFiles[1]).string(), elbo_csv(record));
      files.emplace_back((fs::path(o.output) / kOutputFiles[2]).string(), summary);
      write_files_atomically(files);
    }
    if (std::fwrite(summary.data(), 1, summary.size(), stdout) != summary.size() || std::fflush(stdout) != 0)
      throw output_error("stdout", "cannot write the summary");
  });
  log_peak_memory(pre);
  return 0;
}

}  // namespace

int run_fit(const FitOptions& o, reduce::Communicator& comm) {
  setup_logging(o.log_level, o.quiet || !comm.is_root() ? Verbosity::quiet : Verbosity::normal);
  spec::Config config = reduce::collectively(comm, [&] { return spec::parse_config(o.config); });
  if (o.seed) {
    config.inference.seed = *o.seed;
    config.resolved["inference"]["seed"] = *o.seed;
  }
  // Everything that can fail before the work fails now (cli/preflight.hpp).
  const int threads = resolve_threads(o.threads);
  FitPreflight pre = preflight_fit(o, config, threads, comm);
  return models::with_dtype(config,
                            [&](auto tag) { return fit<decltype(tag)>(o, config, threads, pre, comm); });
}

}  // namespace bvi::cli
