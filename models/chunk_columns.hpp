#pragma once
// The parameter columns one chunk of rows reads, for the log joint's gradient (models/log_joint.cpp):
// every column of the model but the group effects, and of each factor's effects r_F only the levels
// the chunk's rows have. A chunk's gradient is then S x width(chunk) doubles instead of S x P. With
// the model's columns, the reducer's per-chunk slots (zeroed, written and added every pass) held
// n_chunks x S x P doubles, nearly all zeros once the groups outnumber a chunk's rows: 1.1 GB for a
// student_t fit with 20,000 groups (64 chunks x 112 probe draws; docs/performance.md).
//
// A chunk's columns: the model's columns [0, r_start) as they are (globals, likelihood parameters,
// sds, correlations: the model puts every factor's effects after them, Model::build), then per
// factor f in the model's order, per category c with effects of its own (categorical_logit's K - 1,
// else one), the chunk's levels of f in ascending order with K_f effects each: the layout of the r
// blocks with only those levels. DataBlock's local_level and local_groups give the likelihood the
// rows' levels in that numbering (group_term_columns in models/likelihoods/linear_predictor.hpp).
//
// Built once: O(rows x factors) work, a 4-byte chunk level per row and factor, and every chunk's
// levels on every rank (each rank adds every chunk's slot, ChunkReducer), at most
// min(rows, n_chunks x groups) per factor.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "inference/reduce/chunk_reducer.hpp"
#include "models/data_view.hpp"
#include "models/parameter_layout.hpp"

namespace bvi::models {

class ChunkColumns {
 public:
  // std::logic_error when the layout's r blocks are not its last blocks, in the data's factors'
  // order, each C x groups x effects wide.
  template <class T>
  ChunkColumns(const ParameterLayout& layout, const DataView<T>& data, reduce::ChunkReducer& reducer);

  Index width(Index chunk) const { return width_[static_cast<std::size_t>(chunk)]; }
  Index max_width() const { return max_width_; }

  // The chunk's columns of the S x P column-major `values` into `out` (S x width(chunk)).
  void gather(Index chunk, const double* values, Index S, double* out) const;
  // total (S x P) += local (S x width(chunk)) at the chunk's columns.
  void add(Index chunk, const double* local, Index S, double* total) const;

  // For DataBlock::local_level and local_groups of the chunk's blocks.
  const std::int32_t* const* local_levels() const { return level_ptrs_.data(); }
  const Index* local_groups(Index chunk) const { return groups_.data() + chunk * factors_; }

 private:
  template <class Copy>
  void each_run(Index chunk, Index S, Copy&& copy) const;

  Index r_start_ = 0;
  Index factors_ = 0, categories_ = 1;
  std::vector<Index> effects_, model_groups_;           // per factor: K_f, G_f
  std::vector<std::vector<std::int32_t>> local_level_;  // per factor: each local row's chunk level
  std::vector<const std::int32_t*> level_ptrs_;
  std::vector<Index> groups_;                  // per chunk and factor: its levels
  std::vector<std::vector<std::int32_t>> levels_;  // per chunk: its levels, factor by factor, ascending
  std::vector<Index> width_;
  Index max_width_ = 0;
};

}  // namespace bvi::models
