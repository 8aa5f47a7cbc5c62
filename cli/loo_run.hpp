#pragma once
// PSIS-LOO of a fit on its config's data (inference/diagnostics/loo.hpp), as the loo command
// prints it and compare uses it: the rows are taken a chunk at a time, each chunk's pointwise log
// likelihoods (draws x rows) computed on the threads, and the rows' values added in row order, so
// the numbers do not depend on the thread count and the working memory on N only through the
// per-row results kept for the outputs.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inference/diagnostics/loo.hpp"
#include "inference/reduce/communicator.hpp"

namespace bvi::cli {

struct LooRowValue {
  long row = 0;  // the data row (1-based record of the file)
  double elpd_loo = 0, p_loo = 0, looic = 0, pareto_k = 0;
  // --subsample: the row's approximation log p(y_i | mean draw), and whether PSIS-LOO was computed
  // for it (the other values are NaN when not).
  double approximation = 0;
  bool sampled = true;
};

struct LooRun {
  std::string config;  // the config path as given
  std::string fit;     // the fit folder
  std::string likelihood, response, response_hash;
  std::string row_hash;  // models/response_hash.hpp's row_text(): the responses in their order
  long draws = 0;
  diagnostics::LooTotals totals;
  // --subsample M: the difference estimator's totals (totals above is then unset), and the seed
  // that chose the rows.
  long subsample = 0;
  std::uint64_t subsample_seed = 0;
  diagnostics::LooSubsampleTotals subsample_totals;
  std::vector<LooRowValue> high_k;     // the rows with k > 0.7, in row order
  std::vector<LooRowValue> pointwise;  // every row, when asked for
};

struct LooRequest {
  std::string config;
  std::string fit;
  long draws = 0;  // 0: every draw of the fit
  int threads = 1;
  bool pointwise = false;
  // Subsampling LOO (diagnostics::LooSubsampleAccumulator): PSIS-LOO on a simple random sample of
  // `subsample` records (0: every row), chosen by the Philox uniforms keyed by (seed, record).
  long subsample = 0;
  std::optional<std::uint64_t> seed;  // default: the config's inference.seed
};

// With request.subsample > 0 the run is subsampled: every row's approximation, PSIS-LOO for the
// sampled rows only (a sampled record whose row is dropped for a missing value leaves a smaller
// sample, still a simple random one of the rows used), and a usage error (64) unless
// 2 <= subsample <= the data's records.
// Errors: those of load_fit_for_config and read_fit_rows; 65 when the data have no response,
// when the fit was made with other data (another number of rows, other responses: the hashes
// differ; the same responses in another order: the row hashes differ, when the fit records one), when the fit's draws.csv holds a log_p__ or log_g__ that is not a finite number, or when
// a row's log likelihood is not finite at some draw (y impossible under a draw: no ratio exists).
// Under MPI every rank calls it (the chunks of rows are shared out; every rank returns the same
// run, and errors are agreed on, so every rank throws the same one).
LooRun compute_loo(const LooRequest& request, reduce::Communicator& comm);

// CSV header and one line per row: row,elpd_loo,p_loo,looic,pareto_k,influence_pareto_k; when
// `subsampled`, row,elpd_loo_approx,subsampled,elpd_loo,p_loo,looic,pareto_k,influence_pareto_k
// with NA where a row was not sampled.
std::string loo_pointwise_csv(const std::vector<LooRowValue>& rows, bool subsampled = false);

}  // namespace bvi::cli
