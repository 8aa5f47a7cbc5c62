#include "cli/preflight.hpp"

#include "cli/logging.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/memory_limits.hpp"
#include "common/read_file.hpp"
#include "inference/checkpoint.hpp"
#include "inference/final_approximation.hpp"
#include "inference/reduce/collective_error.hpp"

namespace bvi::cli {

namespace {

const std::vector<std::string> kOutputFiles = {"draws.csv", "elbo.csv", "summary.json"};

// Rank 0 writes every output; it checks the paths and holds their locks.
void check_outputs(const FitOptions& o, FitPreflight& p, reduce::Communicator& comm) {
  reduce::collectively(comm, [&] {
    if (!comm.is_root()) return;
    // The output folder first: it is created when missing, and the checkpoint may live in it.
    if (!o.output.empty()) {
      prepare_output_dir(o.output, kOutputFiles);
      p.locks.emplace_back(folder_lock_path(o.output), o.output);
    }
    if (!o.checkpoint.empty()) {
      prepare_output_file(o.checkpoint);
      p.locks.emplace_back(file_lock_path(o.checkpoint), o.checkpoint);
    }
  });
  for (const OutputLock& lock : p.locks)
    if (!lock.held())
      cli_logger().warn(lock.why_not() + "; another run writing the same outputs would not be stopped");
}

// Rank 0 reads the file and sends its text: the other ranks need not see the same filesystem.
std::string read_resume_text(const std::string& path, reduce::Communicator& comm) {
  std::string text;
  reduce::collectively(comm, [&] {
    if (comm.is_root()) text = read_text_file(path);
  });
  comm.broadcast(text, 0);
  return text;
}

}  // namespace

void log_peak_memory(const FitPreflight& p) {
  cli_logger().debug("memory: peak resident " + format_bytes(process_memory().peak_resident) +
                     " (VmHWM), estimated " + format_bytes(p.memory.estimate.peak));
}

std::string run_fingerprint(const spec::Config& config, long long records, long long dim) {
  return vi::fingerprint_of(config.resolved.dump() + "|rows=" + std::to_string(records) +
                            "|dim=" + std::to_string(dim));
}

vi::RunSizes fit_run_sizes(const models::ProblemShape& shape, int threads, const reduce::Communicator& comm,
                           bool checkpoints, bool output_files) {
  const spec::InferenceConfig& inf = shape.config.inference;
  vi::RunSizes s;
  s.rows = shape.rows;
  s.features = shape.features;
  s.linear_predictors = shape.linear_predictors;
  s.dtype_bytes = shape.config.data.dtype == "float32" ? 4 : 8;
  s.extra_columns = shape.extra_columns;
  s.row_constants = shape.row_constants;
  // Only bernoulli_logit's fused op cuts a block into cache-sized tiles (bernoulli_logit_glm.cpp).
  s.tiled_kernel = shape.config.model.likelihood == "bernoulli_logit";
  s.in_place_kernel = shape.config.model.likelihood == "categorical_logit";
  s.numeric_variables = shape.numeric_variables;
  s.categorical_variables = shape.categorical_variables;
  s.design_copy = shape.design_copy;
  s.group_factors = shape.group_factors;
  s.group_slopes = shape.group_slopes;
  s.group_effects = shape.group_effects;
  s.chunk_parameters = shape.chunk_parameters;
  s.sparse_values = shape.sparse_values;
  s.sparse_chunk_values = shape.sparse_chunk_values;
  s.sparse_probes = shape.sparse_probes;
  s.sparse_factor_pairs = shape.sparse_factor_pairs;
  s.block_rows = shape.plan.block_rows;
  s.chunks_owned =
      shape.plan.last_chunk(comm.rank(), comm.size()) - shape.plan.first_chunk(comm.rank(), comm.size());
  s.chunks_total = shape.plan.n_chunks;
  s.parameters = shape.dim;
  s.intercept = shape.config.model.intercept;
  s.method = inf.method;
  s.algorithm = inf.algorithm;
  s.optimizer = inf.optimizer.name;
  s.draws_per_step = inf.draws_per_step;
  s.elbo_samples = inf.elbo_samples;
  s.final_elbo_draws = inf.final_elbo_draws;
  s.output_draws = inf.output_draws;
  s.final_from_output = vi::elbo_from_output_draws(inf.method != "exact", inf.final_elbo_automatic,
                                                   inf.optimizer.name, inf.output_draws, shape.block_transforms);
  s.sample_draws = shape.sample_draws;
  s.sampled_widths.assign(shape.sampled_widths.begin(), shape.sampled_widths.end());
  s.threads = threads;
  s.ranks = comm.size();
  s.checkpoints = checkpoints;
  s.output_files = output_files;
  return s;
}

FitPreflight preflight_fit(const FitOptions& o, const spec::Config& config, int threads,
                           reduce::Communicator& comm) {
  FitPreflight p;
  check_outputs(o, p, comm);
  // Read before the data is scanned: a missing file fails at once.
  const std::string resume_text = o.resume.empty() ? std::string() : read_resume_text(o.resume, comm);

  const models::ProblemShape shape = models::probe_problem(config, comm);
  p.records = shape.total_rows;
  // The config as given: load_problem resolves its automatic settings and default priors from
  // the data's statistics, which are not known yet.
  p.fingerprint = run_fingerprint(config, shape.total_rows, shape.dim);
  if (!o.resume.empty()) {
    // Every rank parses the same text to the same verdict.
    p.resume = reduce::collectively(
        comm, [&] { return vi::parse_checkpoint(resume_text, p.fingerprint, o.resume); });
  }

  vi::RunSizes sizes =
      fit_run_sizes(shape, threads, comm, !o.checkpoint.empty() || !o.resume.empty(), !o.output.empty());
  sizes.program_bytes = process_memory().resident;
  p.memory = judge_memory(sizes, comm);
  cli_logger().debug("memory: " + describe(p.memory));
  cli_logger().debug("memory: estimated from " + describe_terms(p.memory.estimate));
  const bool skip = memory_check_skipped(o.skip_memory_check);
  const std::string message = p.memory.fits() ? "" : over_budget_message(p.memory, sizes, comm.rank());
  if (!message.empty() && skip)
    cli_logger().warn(message.substr(0, message.find("; try ")) + "; running anyway, as asked");
  // Each rank judges its own budget; every rank takes part so that all stop together.
  reduce::collectively(comm, [&] {
    if (!message.empty() && !skip) throw Error(ExitCode::os_error, "memory", message);
  });
  return p;
}

}  // namespace bvi::cli
