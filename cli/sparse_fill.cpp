#include "cli/sparse_fill.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "inference/sparse/fill_count.hpp"
#include "models/spec/config.hpp"

namespace bvi::cli {

SparseFill judge_sparse_fill(const vi::BlockPattern& pattern, const MemoryVerdict& memory, bool memory_check_skipped,
                             reduce::Communicator& comm) {
  SparseFill fill;
  const double indexable = static_cast<double>(vi::max_factor_nonzeros());
  // The estimate holds the factor at the pattern's size; the budget's rest may take the fill-in.
  double cap = indexable;
  std::string bound = "the 2^31 - 1 non-zeros a sparse factor with 32-bit indices holds";
  if (!memory_check_skipped && std::isfinite(memory.budget)) {
    const double spare = std::max(0.0, memory.budget - memory.estimate.peak);
    const double by_memory = static_cast<double>(pattern.size()) + spare / vi::kBytesPerFactorNonzero;
    if (by_memory < cap) {
      cap = by_memory;
      bound = "what the memory left after the estimate (" + format_bytes(spare) + " under " + memory.limit +
              ") holds at " + std::to_string(static_cast<int>(vi::kBytesPerFactorNonzero)) + " bytes each";
    }
  }
  // The smallest cap over the ranks (the count is the same on every rank: the pattern is).
  long mine = -static_cast<long>(std::floor(cap));
  comm.allreduce_max(&mine, 1);
  fill.cap = static_cast<Eigen::Index>(-mine);
  if (static_cast<double>(fill.cap) < std::floor(cap))
    bound = "what the memory of another rank of this fit leaves for it";
  fill.nonzeros = vi::cholesky_nonzeros(pattern, fill.cap);
  if (!fill.fits())
    fill.why_not = "its Cholesky factor would hold more than " + std::to_string(fill.cap) +
                   " non-zeros (the fill-in of crossed factors, " + std::to_string(pattern.size()) +
                   " values on the precision's pattern), more than " + bound;
  return fill;
}

bool fall_back_from_sparse(spec::Config& config, const SparseFill& fill) {
  if (fill.fits()) return false;
  auto& inf = config.inference;
  if (!inf.algorithm_auto)
    throw Error(ExitCode::os_error, "memory",
                "the sparse family does not fit this model: " + fill.why_not +
                    "; try \"algorithm\": \"structured\" (or auto, which falls back to it), or more memory");
  inf.algorithm = "structured";
  inf.algorithm_reason = "auto: structured, since the sparse family would not fit in memory (" + fill.why_not +
                         "); structured keeps each group effect's dependence on its sd";
  config.resolved["inference"]["algorithm"] = inf.algorithm;
  return true;
}

}  // namespace bvi::cli
