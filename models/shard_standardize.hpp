#pragma once
// Standardization when the rows are spread over threads and MPI ranks: the feature means and
// sample sds of the whole dataset, from per-chunk partial sums added in chunk order (so the same
// bits for any thread or rank count), then applied to the rows this process holds.
#include "inference/reduce/chunk_reducer.hpp"
#include "models/data/dataset.hpp"
#include "models/data/standardize.hpp"

namespace bvi::models {

// The whole dataset's statistics; `data` holds rows [first_row, first_row + rows) of the plan.
template <class T>
data::FeatureStats global_feature_stats(const data::Dataset<T>& data, reduce::ChunkReducer& reducer);

// Standardizes `data` in place with the whole dataset's statistics. A constant feature is a data
// error at FILE:1 (the same on every rank, since the statistics are global).
template <class T>
void standardize_shards(data::Dataset<T>& data, reduce::ChunkReducer& reducer);

}  // namespace bvi::models
