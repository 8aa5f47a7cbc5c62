#pragma once
// The data of a model, read the same way on every MPI rank: the columns the model uses (and only
// those), each rank parsing the chunks of rows it owns; rows with a missing cell counted, then
// refused or dropped as data.missing says; categorical levels gathered over the whole file; the
// numeric variables standardized with whole-file statistics; the design columns and the group
// data built from them. Every number and level order depends on the file alone, never on how
// many ranks or threads read it.
#include "inference/reduce/communicator.hpp"
#include "inference/reduce/shard_plan.hpp"
#include "models/chunk_levels.hpp"
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

// `block_rows` 0 chooses from the number of variables (default_block_rows). The kinds of the
// columns not declared come from all of their values (design/column_kinds.hpp). Errors: data (65)
// at FILE:LINE for bad rows, missing values (data.missing "error") and a column of numbers with a
// few cells that are not, FILE:1 for columns (a population-level term of a column with nearly one
// level per row, design/many_levels.hpp); config
// (78) where the config and the data disagree (an unknown column in a formula, too many levels
// for a population-level term). Every rank throws the same error.
template <class T>
ModelData<T> load_model_data(const spec::Config& config, reduce::Communicator& comm, Eigen::Index block_rows,
                             int threads);

// The design of `config`'s model with its levels (the categorical variables', every grouping
// factor's groups), from the header, one scan and the categorical columns alone: no numeric value
// is parsed. What a fit checks before it loads the data (models/problem_shape.hpp). A level seen
// only on rows that loading drops for a missing value elsewhere is counted here too, so the design
// has at most the columns and groups of the loaded one. Errors as load_model_data's for the
// header and the categorical columns; every rank throws the same error.
struct DesignProbe {
  design::Design design;  // its columns expanded, its groups' levels set
  reduce::ShardPlan plan;
  Eigen::Index records = 0;  // data records in the file
  bool trials = false;       // a trials column is read
  bool offset = false;       // an offset or exposure column is read (one offset per row)
  bool weights = false;      // a weights column is read
  // Every chunk's levels of each grouping factor and level pairs (at most: a level seen on rows
  // that loading drops is counted too).
  ChunkLevelCounts chunk_levels;
};

DesignProbe probe_model_design(const spec::Config& config, reduce::Communicator& comm, Eigen::Index block_rows);

}  // namespace bvi::models
