#pragma once
// Everything a command needs to evaluate or fit: the validated config, the model built from it,
// the rows of data this process holds, and how the rows are cut into blocks and chunks.
#include <string>

#include "inference/reduce/communicator.hpp"
#include "inference/reduce/shard_plan.hpp"
#include "models/data/dataset.hpp"
#include "models/data_view.hpp"
#include "models/design/design.hpp"
#include "models/model.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

template <class T>
struct Problem {
  spec::Config config;  // with the automatic settings and the default priors resolved for this model
  Model model;
  data::Dataset<T> data;
  reduce::ShardPlan plan;
  design::Design design;  // the variables, terms and groups, as the summary records them

  DataView<T> view() const {
    DataView<T> v{data.x.data(),
                  data.y.data(),
                  data.x.rows(),
                  data.x.cols(),
                  data.first_row,
                  data.total_rows,
                  data.trials.size() ? data.trials.data() : nullptr,
                  data.offset.size() ? data.offset.data() : nullptr};
    v.weight = data.weight.size() ? data.weight.data() : nullptr;
    v.groups = data.groups.empty() ? nullptr : data.groups.data();
    v.n_groups = static_cast<int>(data.groups.size());
    v.chunk_offsets = data.chunk_offsets.empty() ? nullptr : data.chunk_offsets.data();
    v.first_chunk = data.first_chunk;
    return v;
  }
};

// What the model needs to know of a design: its columns, terms and groups (the groups' levels
// set); column_means left empty.
ModelShape model_shape(const design::Design& design);

struct LoadOptions {
  bool fused = true;     // the fused likelihood primitive (false: composed from generic ops)
  Index block_rows = 0;  // rows per block; 0 chooses from the number of features
  int threads = 1;       // for the passes over the rows (standardization)
};

// Rows per block: enough to amortize the per-block tape work; the fused likelihood tiles a block
// into cache-sized pieces itself. Depends on the data only, never on threads or ranks.
Index default_block_rows(Index features);

// Reads the data for `config` (the rows of this rank only; every rank scans the file but parses
// only its own rows; models/model_data.hpp), fills in the default priors from the whole dataset's
// statistics and builds the model. Errors: data (65) and no_input (66) from the file, config (78)
// where the config and the data disagree; under MPI every rank throws the same error
// (reduce::collectively).
template <class T>
Problem<T> load_problem(const spec::Config& config, reduce::Communicator& comm,
                        const LoadOptions& options = {});

// Calls f(float{}) or f(double{}) as the config's data.dtype says.
template <class F>
decltype(auto) with_dtype(const spec::Config& config, F&& f) {
  if (config.data.dtype == "float32") return f(float{});
  return f(double{});
}

}  // namespace bvi::models
