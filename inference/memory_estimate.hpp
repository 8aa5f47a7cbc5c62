#pragma once
// The peak resident memory of a fit, estimated from sizes alone, before any data is loaded or any
// buffer allocated, so that a run too large for its machine fails at once instead of after hours
// (cli/memory_check.cpp compares it with the limits). Within 25 % of the measured peak on the
// sizes tests/e2e/test_memory_budget.py runs.
//
// The peak is   always + max(load, run + max(iterations, final)):
//   always      what lives from the load to the end: the program itself, the data (the design
//               columns, the response, the extra columns, the grouping factors' indexes and slopes);
//   load        transient while the data is read;
//   run         allocated at the first step and kept to the end (the reducer's per-chunk slots,
//               which only grow; the log joint's tapes and buffers when the steps use it);
//   iterations  what one step of the method holds (its buffers over the rows, its draws, the
//               optimizer's vectors and matrices);
//   final       the final report (output draws and their log densities, the draws.csv text).
// Each method of fitting contributes its own terms to the last three phases through one function,
// found by the method's name (inference.method) in the table in memory_estimate.cpp.
#include <string>
#include <vector>

namespace bvi::vi {

struct RunSizes {
  // The data this process holds.
  long long rows = 0;           // rows held by this rank
  long long features = 0;       // D: the design's columns (beta's)
  long long linear_predictors = 1;  // C per row and draw: categorical_logit's K - 1, else 1
  int dtype_bytes = 8;          // 8 for float64, 4 for float32
  long long extra_columns = 0;  // per-row doubles besides the response: trials, offset (+ log exposure)
  bool row_constants = false;   // the likelihood keeps a data-only constant per row (log C(n, y), log y!)
  bool tiled_kernel = false;    // its fused op cuts a row block into cache-sized tiles (bernoulli_logit)
  // Its fused op keeps one array of linear predictors per category and overwrites it with the
  // gradient (categorical_logit), beside each category's gathered group effects.
  bool in_place_kernel = false;
  // How the rows are read (models/model_data.cpp): the numeric variables into one matrix, the
  // categorical ones as a 4-byte code per row each, then the design's columns built in a matrix of
  // their own unless they are the numeric variables themselves (design_copy false).
  long long numeric_variables = 0;
  long long categorical_variables = 0;
  bool design_copy = false;
  // Grouping factors (models/data/group_data.hpp): a 4-byte group index per row each, the varying
  // slopes' values per row (in the data's type), and sum over factors of groups x effects.
  long long group_factors = 0;
  long long group_slopes = 0;
  long long group_effects = 0;
  // The log joint's gradient columns of one chunk (models/chunk_columns.hpp), at most: the
  // columns before the group effects and, per factor, min(rows of a chunk, groups) levels' K.
  // 0: the parameters.
  long long chunk_parameters = 0;
  long long sparse_values = 0;        // the sparse family's values on its precision pattern (at most)
  long long sparse_chunk_values = 0;  // ... in one chunk's packed partial sums (at most)
  long long sparse_probes = 0;        // the Monte Carlo sparse step's Hessian-vector products per draw
  long long sparse_factor_pairs = 0;  // ... and its pairs of factors that may be crossed
  // How the rows are cut (reduce::ShardPlan).
  long long block_rows = 512;
  long long chunks_owned = 1;  // chunks of this rank
  long long chunks_total = 1;  // chunks of all ranks
  // The model and the run.
  long long parameters = 0;  // P
  bool intercept = false;    // alpha beside beta: D + 1 linear coordinates
  std::string method = "monte_carlo";   // a key of the table in memory_estimate.cpp
  std::string algorithm = "meanfield";  // the family: meanfield, structured, fullrank or sparse
  std::string optimizer = "natural";    // monte_carlo's
  long long draws_per_step = 0;         // S (monte_carlo)
  long long elbo_samples = 100;
  long long final_elbo_draws = 4000;
  long long output_draws = 1000;
  // monte_carlo: the summary's ELBO from the output draws, no final_elbo_draws drawn
  // (vi::elbo_from_output_draws).
  bool final_from_output = false;
  // The exact method's sample-average prior terms (models/expected_prior.hpp): their fixed draws,
  // and the columns each term reads.
  long long sample_draws = 0;
  std::vector<long long> sampled_widths;
  int threads = 1;
  int ranks = 1;
  bool checkpoints = false;  // --checkpoint or --resume: the state as JSON text
  bool output_files = true;  // --output: the draws.csv text is built in memory
  double program_bytes = 0;  // resident before the run: the program, its libraries, MPI (measured)
};

enum class Phase { always, load, run, iterations, final };

struct MemoryTerm {
  std::string what;  // e.g. "data", "reducer slots"
  Phase phase;
  double bytes;
};

struct MemoryEstimate {
  std::vector<MemoryTerm> terms;
  double peak = 0;  // bytes: always + max(load, run + max(iterations, final))

  // The sum of the terms of one phase.
  double phase_bytes(Phase phase) const;
  // The largest term, for messages ("mostly the data").
  const MemoryTerm& largest() const;
};

// Throws std::invalid_argument for a method without terms (a new method must add its function).
MemoryEstimate estimate_memory(const RunSizes& sizes);

// One method's terms: what it keeps from its first step to the end (Phase::run), and what its
// steps (Phase::iterations) and its final report (Phase::final) hold at their peak, appended to `out`.
using MethodTerms = void (*)(const RunSizes& sizes, std::vector<MemoryTerm>& out);

// The methods the estimator knows, by name (inference.method's values).
std::vector<std::string> estimated_methods();

// Draws evaluated per log joint pass (models::LogJointOptions::max_batch): the reducer's slots
// and the tapes scale with this, not with draws_per_step.
constexpr long long kLogJointBatch = 256;

}  // namespace bvi::vi
