#pragma once
// The sparse family's Cholesky factor against what the fit may hold. The up-front memory check
// (memory_check.hpp) counts the precision's pattern, known from the data's shape; the fill-in that
// crossed factors add to the factor is known only once the level pairs that share rows are read.
// So, with the pattern built, the factor's non-zeros are counted (inference/sparse/fill_count.hpp)
// up to what the budget leaves for them, and at most what 32-bit indices address:
//   - within: the sparse family runs;
//   - over, the family chosen by auto: the fit falls back to structured (each group effect tied to
//     its group's sd, no factor; meanfield under the Monte Carlo method), and algorithm_choice
//     says why;
//   - over, sparse asked for in the config: exit 71, naming the factor's size and the remedies.
// The count and the budget are taken on every rank and reduced, so every rank decides the same.
#include <memory>
#include <string>

#include "cli/memory_check.hpp"
#include "inference/reduce/communicator.hpp"
#include "inference/sparse/block_pattern.hpp"

namespace bvi::spec {
struct Config;
}

namespace bvi::cli {

struct SparseFill {
  Eigen::Index cap = 0;        // the most factor non-zeros this fit may hold (the smallest over ranks)
  Eigen::Index nonzeros = 0;   // counted; cap + 1 when over
  bool fits() const { return nonzeros <= cap; }
  std::string why_not;         // when over: "its Cholesky factor would hold more than ... non-zeros ..."
};

// How many factors' worth of fill-in the fit holds at once, each factor at kBytesPerFactorNonzero
// a non-zero: the exact method's one, the Monte Carlo step's three (q's; the step's new precision
// Lambda'; the floor's Lambda' - Lambda / 4: natural_sparse_step.hpp), and the dense tail's two
// m x m scratch matrices that a thread's factors share (inference/sparse/tail_scratch.hpp), 32
// bytes a non-zero of the tail at most: 1.6 factors more.
double sparse_factors_held(const spec::Config& config);

// Collective. `memory` is this rank's verdict (its budget less its estimate is what the fill-in
// of `factors` factors may take); with the memory check skipped only the index limit applies.
SparseFill judge_sparse_fill(const vi::BlockPattern& pattern, const MemoryVerdict& memory, bool memory_check_skipped,
                             double factors, reduce::Communicator& comm);

// Applies a verdict that does not fit: auto's sparse becomes structured (config.inference's
// algorithm, algorithm_choice and the resolved config say so); a sparse family asked for is
// Error(71). Returns whether the family changed.
bool fall_back_from_sparse(spec::Config& config, const SparseFill& fill);

// The Monte Carlo method's sparse step reads each entry of the Hessian from a product that holds it
// alone (inference/sparse/hessian_probes.hpp), which crossed factors do not give; their entries
// come from the rows' curvature in eta instead where the likelihood has it (`crossed_curvature`:
// models::crossed_curvature_fits). Without it auto's sparse becomes what auto takes without the
// family, fullrank within its bounds for `rows` rows, else meanfield (algorithm_choice says why);
// sparse asked for is a config error (78). Nothing for the exact method, whose expectations
// assemble any pattern. Returns whether the family changed.
bool fall_back_from_crossed(spec::Config& config, const vi::BlockPattern& pattern, long long rows,
                            bool crossed_curvature);

}  // namespace bvi::cli
