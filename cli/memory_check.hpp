#pragma once
// The memory budget of a fit: this rank's estimated peak (inference/memory_estimate) against what
// it may use (common/memory_limits): the smallest of
//   - the address-space limit (RLIMIT_AS), less what is mapped but not resident now and the
//     stacks and tape blocks of the threads still to start (it counts mappings, not pages);
//   - the cgroup's memory limit, less the estimates of the other ranks in the same cgroup on the
//     same machine (they share it);
//   - MemAvailable, plus what this rank holds already, less what the other ranks on the machine
//     will still add (they share it too);
//   - BAYES_VI_MEMORY_LIMIT when set (bytes, or with kB/MB/GB/KiB/MiB/GiB): a budget for each rank
//     the user chooses, on a shared machine without a cgroup (a usage error when malformed).
// Judged before anything is loaded; over budget is exit 71 (EX_OSERR: the system cannot provide
// what the run needs) with one line that names the estimate, the limit and the remedies.
#include <limits>
#include <string>

#include "inference/memory_estimate.hpp"
#include "inference/reduce/communicator.hpp"

namespace bvi::cli {

struct MemoryVerdict {
  vi::MemoryEstimate estimate;  // this rank's
  double budget = std::numeric_limits<double>::infinity();
  std::string limit;  // the binding limit, as the message names it; empty when none is known
  bool fits() const { return estimate.peak <= budget; }
};

// Collective: every rank calls it (it learns which ranks share a machine and a cgroup).
MemoryVerdict judge_memory(const vi::RunSizes& sizes, reduce::Communicator& comm);

// The one-line message for a verdict that does not fit (without "memory: ").
std::string over_budget_message(const MemoryVerdict& verdict, const vi::RunSizes& sizes, int rank);

// "about 110 MB at peak; may use 23.1 GB (MemAvailable ...)", for check and the log.
std::string describe(const MemoryVerdict& verdict);

// The estimate's terms by phase, largest first in each: "always: data 80.8 MB, ...; load: ...".
std::string describe_terms(const vi::MemoryEstimate& estimate);

// "1.21 GB", "940.5 MB" (decimal units, as free and df print with -H).
std::string format_bytes(double bytes);

// --skip-memory-check, or BAYES_VI_SKIP_MEMORY_CHECK set to anything but "" or "0".
bool memory_check_skipped(bool flag);

}  // namespace bvi::cli
