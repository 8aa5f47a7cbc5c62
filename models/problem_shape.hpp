#pragma once
// The shape of a problem before its data is loaded: how many rows (this rank's and all), design
// columns, group-level effects and parameters, how the rows are cut, and the config with its
// automatic settings resolved. What a fit checks before the work needs it (the memory budget, a
// checkpoint's fingerprint); it costs the header, one scan of the file at memchr speed and, when
// the model has categorical variables or grouping factors, a read of those columns alone (their
// levels make the design's columns and the groups); never a parse of a numeric column.
#include <string>
#include <vector>

#include "inference/reduce/communicator.hpp"
#include "inference/reduce/shard_plan.hpp"
#include "models/chunk_levels.hpp"
#include "models/problem.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

struct ProblemShape {
  spec::Config config;  // with the automatic settings resolved for this model, as load_problem's
  Index total_rows = 0;
  Index rows = 0;  // held by this rank
  Index features = 0;  // design columns (beta's)
  Index dim = 0;       // parameters
  Index linear_predictors = 1;  // per row and draw: categorical_logit's K - 1, else 1
  reduce::ShardPlan plan;
  Index extra_columns = 0;     // per-row doubles kept besides the response (trials, offset + log exposure, weight)
  bool row_constants = false;  // the likelihood keeps a data-only term per row
  // How the rows are read (models/model_data.cpp): the numeric variables into one matrix and the
  // categorical ones as a code per row each, then the design's columns built from them in a
  // matrix of their own unless they are the numeric variables themselves.
  Index numeric_variables = 0;
  Index categorical_variables = 0;
  bool design_copy = false;
  // Grouping factors (models/data/group_data.hpp): a group index per row each, the varying slopes'
  // values per row, and sum over factors of groups x effects (the r_F parameters).
  Index group_factors = 0;
  Index group_slopes = 0;
  Index group_effects = 0;
  // Every chunk's levels of each factor and level pairs of each two (models/chunk_levels.hpp);
  // empty where they were not counted (set_sparse_sizes then bounds a chunk's levels).
  ChunkLevelCounts chunk_levels;
  // The log joint's gradient columns of the widest chunk (models/chunk_columns.hpp), at most: the
  // columns before the group effects and, per factor, the chunk's levels' effects (without the
  // counts: min(rows of a chunk, groups) levels).
  Index chunk_parameters = 0;
  // The sparse family's values on its precision pattern (inference/sparse/block_pattern.hpp), at
  // most: the globals' block, each effect with its group's effects and every global, and for two
  // factors one block per row at most (their level pairs are known only once the rows are read).
  Index sparse_values = 0;
  // ... and of the widest chunk's packed partial sums (models/expected_likelihood_sparse.cpp), at
  // most: the globals' block, per factor one block of K (K + n) per level of the chunk, and per
  // two factors one of K K2 per level pair of the chunk (without the counts: min(rows of a chunk,
  // groups) and min(rows of a chunk, pairs)).
  Index sparse_chunk_values = 0;
  // The Monte Carlo method's sparse step: its Hessian-vector products per draw (n globals + each
  // factor's K; inference/sparse/hessian_probes.hpp).
  Index sparse_probes = 0;
  // ... and its pairs of factors that may be crossed (not one factor's categories), whose pair
  // entries come from the rows' curvature (models/crossed_curvature.hpp: a slot per row and pair).
  Index sparse_factor_pairs = 0;
  // Whether the layout has a block transform (correlations, ordered cutpoints; the final report's
  // choice of draws, vi::elbo_from_output_draws).
  bool block_transforms = false;
  // The exact method's sample-average prior terms under the resolved family: their fixed draws and
  // the columns each reads (models/expected_prior.hpp); empty for the Monte Carlo method.
  Index sample_draws = 0;
  std::vector<Index> sampled_widths;
};

// Sets the sample-average sizes of `s` (its config resolved) for `model`.
void set_sample_sizes(ProblemShape& s, const Model& model);
// Sets the per-chunk and the sparse family's sizes of `s` (chunk_parameters, sparse_values,
// sparse_chunk_values, sparse_probes, sparse_factor_pairs; its dim, total_rows, plan and
// group_factors set) for `model`.
void set_sparse_sizes(ProblemShape& s, const Model& model);

// Errors as load_problem's for the header and the categorical columns (66 for the file, 65 for its
// header, a bad categorical cell or no rows, 78 where the config and the header disagree), the same
// on every rank. Values in the numeric columns are found bad only by loading.
ProblemShape probe_problem(const spec::Config& config, reduce::Communicator& comm, Index block_rows = 0);

// Whether the design's columns are exactly its numeric variables, in order (loading then keeps
// the variables' matrix as the design, without a copy).
bool design_is_numeric_variables(const design::Design& design);

// The chunk level counts of loaded rows: `level` per factor, the data's chunk offsets (empty when no
// row was dropped: the plan's rows from first_row) and first chunk. Collective.
ChunkLevelCounts loaded_chunk_levels(const std::vector<const std::vector<std::int32_t>*>& level,
                                     const std::vector<Index>& chunk_offsets, Index first_chunk, Index first_row,
                                     Index rows, const reduce::ShardPlan& plan, reduce::Communicator& comm);

// The shape of a problem already loaded. Collective (its chunks' level counts).
template <class T>
ProblemShape shape_of(const Problem<T>& p, reduce::Communicator& comm) {
  ProblemShape s;
  s.config = p.config;
  s.total_rows = p.data.total_rows;
  s.rows = p.data.x.rows();
  s.features = p.data.x.cols();
  s.dim = p.model.dim();
  s.linear_predictors = p.model.layout().categories() > 0 ? p.model.layout().categories() - 1 : 1;
  s.plan = p.plan;
  s.extra_columns = (p.data.trials.size() > 0 ? 1 : 0) + (p.data.offset.size() > 0 ? 1 : 0) +
                    (p.data.weight.size() > 0 ? 1 : 0);
  s.row_constants = p.model.likelihood().log_constants(nullptr, nullptr, 0, nullptr);
  s.numeric_variables = static_cast<Index>(p.design.numeric_variables().size());
  s.categorical_variables = static_cast<Index>(p.design.categorical_variables().size());
  s.design_copy = !design_is_numeric_variables(p.design);
  s.group_factors = static_cast<Index>(p.data.groups.size());
  for (const auto& g : p.data.groups) {
    s.group_slopes += g.slopes.cols();
    s.group_effects += g.groups() * g.effects();
  }
  s.block_transforms = p.model.layout().has_block_transform();
  std::vector<const std::vector<std::int32_t>*> level;
  for (const auto& g : p.data.groups) level.push_back(&g.level);
  s.chunk_levels = loaded_chunk_levels(level, p.data.chunk_offsets, p.data.first_chunk, p.data.first_row,
                                       s.rows, p.plan, comm);
  set_sparse_sizes(s, p.model);
  set_sample_sizes(s, p.model);
  return s;
}

}  // namespace bvi::models
