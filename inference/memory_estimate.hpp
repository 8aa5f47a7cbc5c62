#pragma once
// The peak resident memory of a fit, estimated from sizes alone, before any data is loaded or any
// buffer allocated, so that a run too large for its machine fails at once instead of after hours
// (cli/memory_check.cpp compares it with the limits). Within 25 % of the measured peak on the
// sizes tests/e2e/test_memory_budget.py runs.
//
// The peak is   always + max(load, iterations, final):
//   always      what lives from the load to the end: the program itself, the data, the per-thread AD
//               tapes, the reducer's per-chunk slots, the log joint's batch buffers;
//   load        transient while the data is read;
//   iterations  what one step of the method holds (draws, gradients, the optimizer's matrices);
//   final       the final report (ELBO draws, output draws, the draws.csv text).
// Each method of fitting contributes its own terms to the last two phases through one function,
// found by the method's name (inference.algorithm) in the table in memory_estimate.cpp.
#include <string>
#include <vector>

namespace bvi::vi {

struct RunSizes {
  // The data this process holds.
  long long rows = 0;           // rows held by this rank
  long long features = 0;       // D
  int dtype_bytes = 8;          // 8 for float64, 4 for float32
  long long extra_columns = 0;  // per-row doubles besides the response: trials, offset (+ log exposure)
  bool row_constants = false;   // the likelihood keeps a data-only constant per row (log C(n, y), log y!)
  bool tiled_kernel = false;    // its fused op cuts a row block into cache-sized tiles (bernoulli_logit)
  // How the rows are cut (reduce::ShardPlan).
  long long block_rows = 512;
  long long chunks_owned = 1;  // chunks of this rank
  long long chunks_total = 1;  // chunks of all ranks
  // The model and the run.
  long long parameters = 0;      // P
  long long draws_per_step = 0;  // S
  long long elbo_samples = 100;
  long long final_elbo_draws = 4000;
  long long output_draws = 1000;
  std::string algorithm = "meanfield";  // the method: a key of the table in memory_estimate.cpp
  std::string optimizer = "natural";
  int threads = 1;
  int ranks = 1;
  bool checkpoints = false;  // --checkpoint or --resume: the state as JSON text
  bool output_files = true;  // --output: the draws.csv text is built in memory
  double program_bytes = 0;  // resident before the run: the program, its libraries, MPI (measured)
};

enum class Phase { always, load, iterations, final };

struct MemoryTerm {
  std::string what;  // e.g. "data", "reducer slots"
  Phase phase;
  double bytes;
};

struct MemoryEstimate {
  std::vector<MemoryTerm> terms;
  double peak = 0;  // bytes: always + the largest of the other phases

  // The sum of the terms of one phase.
  double phase_bytes(Phase phase) const;
  // The largest term, for messages ("mostly the data").
  const MemoryTerm& largest() const;
};

// Throws std::invalid_argument for a method without terms (a new method must add its function).
MemoryEstimate estimate_memory(const RunSizes& sizes);

// One method's terms: what its steps (Phase::iterations) and its final report (Phase::final) hold at
// their peak, appended to `out`.
using MethodTerms = void (*)(const RunSizes& sizes, std::vector<MemoryTerm>& out);

// The methods the estimator knows, by name.
std::vector<std::string> estimated_methods();

// Draws evaluated per log joint pass (models::LogJointOptions::max_batch): the reducer's slots
// and the tapes scale with this, not with draws_per_step.
constexpr long long kLogJointBatch = 256;

}  // namespace bvi::vi
