#pragma once
// The data of a model, read the same way on every MPI rank: the columns the model uses (and only
// those), each rank parsing the chunks of rows it owns; rows with a missing cell counted, then
// refused or dropped as data.missing says; categorical levels gathered over the whole file; the
// numeric variables standardized with whole-file statistics; the design columns and the group
// data built from them. Every number and level order depends on the file alone, never on how
// many ranks or threads read it.
#include "inference/reduce/communicator.hpp"
#include "inference/reduce/shard_plan.hpp"
#include "models/data/dataset.hpp"
#include "models/design/design.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

template <class T>
struct ModelData {
  data::Dataset<T> data;
  design::Design design;
  reduce::ShardPlan plan;
};

// `block_rows` 0 chooses from the number of variables (default_block_rows). Errors: data (65)
// at FILE:LINE for bad rows and missing values (data.missing "error"), FILE:1 for columns; config
// (78) where the config and the data disagree (an unknown column in a formula, too many levels
// for a population-level term). Every rank throws the same error.
template <class T>
ModelData<T> load_model_data(const spec::Config& config, reduce::Communicator& comm, Eigen::Index block_rows,
                             int threads);

}  // namespace bvi::models
