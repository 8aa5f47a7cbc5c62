#pragma once
// How many levels of each grouping factor, and how many level pairs of each two factors, the rows
// of every chunk have: what sizes the per-chunk partial sums of a multilevel fit (the log joint's
// chunk columns, models/chunk_columns.hpp; the sparse family's packed blocks,
// models/expected_likelihood_sparse.cpp). The memory estimate (models/problem_shape.hpp) takes the
// widest chunk from these counts; without them it can only bound a chunk's levels by
// min(rows of a chunk, groups), far above the truth when the rows are sorted by group.
//
// Counted from any level codes that name distinct levels distinctly (a rank's own codes, before its
// levels are merged with the other ranks', will do): codes that share a level only raise a count,
// and an upper bound is what an estimate needs. O(rows) for the levels, O(rows log rows) for the
// pairs; every rank gets every chunk's counts (an allreduce of n_chunks x (F + F (F - 1) / 2)).
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "inference/reduce/communicator.hpp"

namespace bvi::models {

class ChunkLevelCounts {
 public:
  ChunkLevelCounts() = default;
  // `level[f]` holds each of this rank's rows' code of factor f (codes >= 0); this rank's chunks are
  // first_chunk, first_chunk + 1, ..., chunk k its rows [offsets[k], offsets[k + 1]). Collective.
  static ChunkLevelCounts count(const std::vector<const std::vector<std::int32_t>*>& level,
                                const std::vector<Eigen::Index>& offsets, Eigen::Index first_chunk,
                                Eigen::Index n_chunks, reduce::Communicator& comm);

  bool empty() const { return chunks_ == 0; }
  Eigen::Index chunks() const { return chunks_; }
  Eigen::Index factors() const { return factors_; }
  // Levels of factor f in chunk c's rows.
  Eigen::Index levels(Eigen::Index c, Eigen::Index f) const { return counts_[at(c, f)]; }
  // Distinct (level of f1, level of f2) of chunk c's rows, f1 != f2.
  Eigen::Index pairs(Eigen::Index c, Eigen::Index f1, Eigen::Index f2) const;

 private:
  std::size_t at(Eigen::Index c, Eigen::Index k) const {
    return static_cast<std::size_t>(c * per_chunk_ + k);
  }
  Eigen::Index chunks_ = 0, factors_ = 0, per_chunk_ = 0;
  std::vector<long> counts_;  // per chunk: F levels, then the pairs (0, 1), (0, 2), ..., (1, 2), ...
};

}  // namespace bvi::models
