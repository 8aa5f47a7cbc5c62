#pragma once
// What fit checks before it loads the data, so that a run that cannot finish fails in seconds
// rather than after hours of work: every path it will write (the checkpoint's folder and the
// output folder, each locked against a second run), the checkpoint it resumes (readable, a
// checkpoint, of this config, seed and data), and the memory budget. Whether the resumed state's
// sizes fit the model is checked once the data is loaded (the model's groups and levels, and the
// automatic family, come from it), before the first iteration (fit_command.cpp). Every MPI rank
// takes part and all exit with the same code.
#include <optional>
#include <string>
#include <vector>

#include "cli/fit_command.hpp"
#include "cli/memory_check.hpp"
#include "common/output_lock.hpp"
#include "inference/advi.hpp"
#include "inference/memory_estimate.hpp"
#include "inference/reduce/communicator.hpp"
#include "models/problem_shape.hpp"

namespace bvi::cli {

struct FitPreflight {
  std::string fingerprint;  // of this run (config, seed, data shape), for the checkpoints it writes
  long long records = 0;    // data records in the file, as the scan counted them
  std::optional<vi::AdviState> resume;  // parsed, of this run; its sizes not yet checked
  MemoryVerdict memory;
  std::vector<OutputLock> locks;  // on rank 0: the output folder and the checkpoint, until the run ends
};

// Errors: 73 for an output path, 66 for a --resume file that cannot be read, 78 for one that is not
// a checkpoint of this run, the data's own (65, 66, 78) from its header and scan, 71 over the
// memory budget (unless skipped; then a warning).
FitPreflight preflight_fit(const FitOptions& options, const spec::Config& config, int threads,
                           reduce::Communicator& comm);

// At the end of a fit: its peak resident set against the estimate, in the debug log.
void log_peak_memory(const FitPreflight& preflight);

// A run's identity for checkpoints: the config as given (seed included, before the automatic
// settings and default priors that depend on the data), the file's records and the parameters of
// the model probed from the header and the categorical columns.
std::string run_fingerprint(const spec::Config& config, long long records, long long dim);

// The sizes the memory estimate takes, for a fit of `shape` on this rank (all but program_bytes,
// which the caller measures before it loads anything).
vi::RunSizes fit_run_sizes(const models::ProblemShape& shape, int threads, const reduce::Communicator& comm,
                           bool checkpoints, bool output_files);

}  // namespace bvi::cli
