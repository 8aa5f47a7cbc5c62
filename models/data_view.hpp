#pragma once
// The rows of the dataset this process holds, as the log joint reads them: features row-major
// (rows x cols), responses, the columns some likelihoods read besides, and where the rows sit in
// the whole dataset (ranks hold slices).
#include <Eigen/Core>
#include <utility>

#include "inference/reduce/shard_plan.hpp"
#include "models/data/group_data.hpp"
#include "models/likelihoods/likelihood.hpp"

namespace bvi::models {

template <class T>
struct DataView {
  const T* x = nullptr;
  const double* y = nullptr;
  Eigen::Index rows = 0;           // rows held here
  Eigen::Index cols = 0;           // features
  Eigen::Index first_row = 0;      // global index of the first row held here
  Eigen::Index total_rows = 0;     // rows in the whole dataset
  const double* trials = nullptr;  // binomial: trials per row (null when the model has none)
  const double* offset = nullptr;  // added to the linear predictor (null: none)
  const double* weight = nullptr;  // each row's log-likelihood weight (null: every row weighs 1)
  // Grouping factors (n_groups of them), in the order of the model's group terms.
  const data::GroupData<T>* groups = nullptr;
  int n_groups = 0;
  // Local rows per chunk (data::Dataset::chunk_offsets); null: the plan's rows from first_row.
  const Eigen::Index* chunk_offsets = nullptr;
  Eigen::Index first_chunk = 0;

  // Chunk `chunk`'s local rows [begin, end): its kept rows, or the plan's rows when none were dropped.
  std::pair<Eigen::Index, Eigen::Index> chunk_rows(const reduce::ShardPlan& plan, Eigen::Index chunk) const {
    if (chunk_offsets) return {chunk_offsets[chunk - first_chunk], chunk_offsets[chunk - first_chunk + 1]};
    return {plan.chunk_begin_row(chunk) - first_row, plan.chunk_end_row(chunk) - first_row};
  }

  // The m local rows from `local` as a likelihood reads them: features, response and every
  // per-row column the model has.
  DataBlock<T> block(Eigen::Index local, Eigen::Index m) const {
    DataBlock<T> b{x + local * cols, y + local, m, cols};
    if (trials) b.trials = trials + local;
    if (offset) b.offset = offset + local;
    if (weight) b.weight = weight + local;
    b.groups = groups;
    b.n_groups = n_groups;
    b.first_local = local;
    return b;
  }
};

}  // namespace bvi::models
