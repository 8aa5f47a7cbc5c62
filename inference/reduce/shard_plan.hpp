#pragma once
// How the data rows are cut up. Rows form fixed-size blocks (the unit of one fused kernel call,
// sized for the cache); consecutive blocks form chunks (the unit of work of one thread and the
// unit of the deterministic reduction); ranks own contiguous ranges of chunks. The cut depends
// only on the number of rows, never on the number of threads or ranks, and the per-chunk sums
// are added in chunk order, so every thread and rank count gives the same bits.
#include <Eigen/Core>
#include <algorithm>

namespace bvi::reduce {

using Index = Eigen::Index;

struct ShardPlan {
  Index total_rows = 0;
  Index block_rows = 0;
  Index chunk_rows = 0;
  Index n_chunks = 0;

  // Aim for this many chunks: enough to balance 2-8 threads or ranks to a few percent, few enough
  // that the per-chunk partial sums stay small (n_chunks x draws x parameters doubles).
  static constexpr Index kTargetChunks = 64;

  static ShardPlan make(Index total_rows, Index block_rows) {
    ShardPlan p;
    p.total_rows = total_rows;
    p.block_rows = std::max<Index>(1, block_rows);
    const Index n_blocks = (total_rows + p.block_rows - 1) / p.block_rows;
    const Index blocks_per_chunk = std::max<Index>(1, (n_blocks + kTargetChunks - 1) / kTargetChunks);
    p.chunk_rows = p.block_rows * blocks_per_chunk;
    p.n_chunks = (total_rows + p.chunk_rows - 1) / p.chunk_rows;
    return p;
  }

  Index chunk_begin_row(Index c) const { return std::min(c * chunk_rows, total_rows); }
  Index chunk_end_row(Index c) const { return std::min((c + 1) * chunk_rows, total_rows); }

  // Chunks [first, last) of `rank` out of `ranks`: contiguous, sizes differing by at most one.
  Index first_chunk(int rank, int ranks) const { return n_chunks * rank / ranks; }
  Index last_chunk(int rank, int ranks) const { return n_chunks * (rank + 1) / ranks; }
  Index first_row(int rank, int ranks) const { return chunk_begin_row(first_chunk(rank, ranks)); }
  Index last_row(int rank, int ranks) const { return chunk_begin_row(last_chunk(rank, ranks)); }
};

}  // namespace bvi::reduce
