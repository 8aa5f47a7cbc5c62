#include "cli/sparse_fill.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/error.hpp"
#include "inference/sparse/fill_count.hpp"
#include "inference/sparse/hessian_probes.hpp"
#include "models/spec/config.hpp"

namespace bvi::cli {

namespace {

// Automatic draws per step follow the family the fit falls back to.
void fallback_draws(spec::Config& config, long long parameters) {
  auto& inf = config.inference;
  if (!inf.draws_per_step_auto) return;
  inf.draws_per_step = spec::automatic_draws_per_step(config, parameters);
  config.resolved["inference"]["draws_per_step"] = inf.draws_per_step;
}

}  // namespace

double sparse_factors_held(const spec::Config& config) {
  return (config.inference.method == "exact" ? 1.0 : 3.0) + 32.0 / vi::kBytesPerFactorNonzero;
}

static std::string format_factors(double factors) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", factors);
  return text;
}

SparseFill judge_sparse_fill(const vi::BlockPattern& pattern, const MemoryVerdict& memory, bool memory_check_skipped,
                             double factors, reduce::Communicator& comm) {
  SparseFill fill;
  const double indexable = static_cast<double>(vi::max_factor_nonzeros());
  // The estimate holds the factors at the pattern's size; the budget's rest may take their fill-in.
  double cap = indexable;
  std::string bound = "the 2^31 - 1 non-zeros a sparse factor with 32-bit indices holds";
  if (!memory_check_skipped && std::isfinite(memory.budget)) {
    const double spare = std::max(0.0, memory.budget - memory.estimate.peak);
    const double by_memory =
        static_cast<double>(pattern.size()) + spare / (std::max(1.0, factors) * vi::kBytesPerFactorNonzero);
    if (by_memory < cap) {
      cap = by_memory;
      bound = "what the memory left after the estimate (" + format_bytes(spare) + " under " + memory.limit +
              ") holds at " + std::to_string(static_cast<int>(vi::kBytesPerFactorNonzero)) + " bytes each" +
              " for " + format_factors(factors) + " factors' worth the fit holds";
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
  if (inf.method == "exact") {
    inf.algorithm = "structured";
    inf.algorithm_reason = "auto: structured, since the sparse family would not fit in memory (" +
                           fill.why_not + "); structured keeps each group effect's dependence on its sd";
  } else {
    inf.algorithm = "meanfield";
    inf.algorithm_reason =
        "auto: meanfield, since the sparse family would not fit in memory (" + fill.why_not + ")";
    fallback_draws(config, 0);
  }
  config.resolved["inference"]["algorithm"] = inf.algorithm;
  return true;
}

bool fall_back_from_crossed(spec::Config& config, const vi::BlockPattern& pattern, long long rows,
                            bool crossed_curvature) {
  auto& inf = config.inference;
  if (inf.method == "exact" || crossed_curvature) return false;
  const std::string why = vi::HessianProbes::why_not(pattern);
  if (why.empty()) return false;
  if (!inf.algorithm_auto)
    throw config_error("/inference/algorithm",
                       "the Monte Carlo method's sparse family takes crossed grouping factors only for a likelihood "
                       "with one linear predictor per row (student_t, ordinal_logit, ordinal_probit), and " +
                           why + "; use meanfield or fullrank, or the exact method where the likelihood has it");
  // What auto takes without the Monte Carlo sparse family: fullrank within its bounds, else meanfield.
  const long long P = pattern.dim();
  std::string reason;
  inf.algorithm =
      spec::automatic_algorithm(inf.method, P, rows, &reason, true, false, inf.method_for_likelihood,
                                inf.optimizer.name == "natural", false);
  inf.algorithm_reason =
      reason + " (the Monte Carlo method's sparse family does not take crossed factors: " + why + ")";
  fallback_draws(config, P);
  config.resolved["inference"]["algorithm"] = inf.algorithm;
  return true;
}

}  // namespace bvi::cli
