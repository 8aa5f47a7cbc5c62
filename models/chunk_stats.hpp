#pragma once
// Column statistics of the whole dataset when its rows are spread over threads and MPI ranks:
// means and sample sds from per-chunk partial sums added in chunk order (so the same bits for any
// thread or rank count; see data/standardize.hpp for the two passes), over the rows each chunk
// kept (LocalChunks).
#include <vector>

#include "inference/reduce/chunk_reducer.hpp"
#include "models/data/row_matrix.hpp"
#include "models/data/standardize.hpp"

namespace bvi::models {

// The local rows of the chunks this process holds: chunk first_chunk + k is local rows
// [offsets[k], offsets[k + 1]).
struct LocalChunks {
  Eigen::Index first_chunk = 0;
  std::vector<Eigen::Index> offsets;
  Eigen::Index begin(Eigen::Index chunk) const {
    return offsets[static_cast<std::size_t>(chunk - first_chunk)];
  }
  Eigen::Index count(Eigen::Index chunk) const {
    const auto k = static_cast<std::size_t>(chunk - first_chunk);
    return offsets[k + 1] - offsets[k];
  }
};

// Means, sample sds (ddof = 1), minima and maxima of the columns of `x` (this process's rows),
// over every process's rows; `rows` is the total number of rows.
template <class T>
data::FeatureStats chunked_column_stats(const data::RowMatrix<T>& x, Eigen::Index rows,
                                        const LocalChunks& chunks, reduce::ChunkReducer& reducer);

}  // namespace bvi::models
