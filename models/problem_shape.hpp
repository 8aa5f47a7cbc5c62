#pragma once
// The shape of a problem before its data is loaded: how many rows (this rank's and all), design
// columns, group-level effects and parameters, how the rows are cut, and the config with its
// automatic settings resolved. What a fit checks before the work needs it (the memory budget, a
// checkpoint's fingerprint); it costs the header, one scan of the file at memchr speed and, when
// the model has categorical variables or grouping factors, a read of those columns alone (their
// levels make the design's columns and the groups); never a parse of a numeric column.
#include <string>

#include "inference/reduce/communicator.hpp"
#include "inference/reduce/shard_plan.hpp"
#include "models/problem.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

struct ProblemShape {
  spec::Config config;  // with the automatic settings resolved for this model, as load_problem's
  Index total_rows = 0;
  Index rows = 0;  // held by this rank
  Index features = 0;  // design columns (beta's)
  Index dim = 0;       // parameters
  reduce::ShardPlan plan;
  Index extra_columns = 0;     // per-row doubles kept besides the response (trials, offset + log exposure)
  bool row_constants = false;  // the likelihood keeps a data-only term per row
};

// Errors as load_problem's for the header and the categorical columns (66 for the file, 65 for its
// header, a bad categorical cell or no rows, 78 where the config and the header disagree), the same
// on every rank. Values in the numeric columns are found bad only by loading.
ProblemShape probe_problem(const spec::Config& config, reduce::Communicator& comm, Index block_rows = 0);

// The shape of a problem already loaded.
template <class T>
ProblemShape shape_of(const Problem<T>& p) {
  ProblemShape s;
  s.config = p.config;
  s.total_rows = p.data.total_rows;
  s.rows = p.data.x.rows();
  s.features = p.data.x.cols();
  s.dim = p.model.dim();
  s.plan = p.plan;
  s.extra_columns = (p.data.trials.size() > 0 ? 1 : 0) + (p.data.offset.size() > 0 ? 1 : 0);
  s.row_constants = p.model.likelihood().log_constants(nullptr, nullptr, 0, nullptr);
  return s;
}

}  // namespace bvi::models
