#include "models/chunk_stats.hpp"

namespace bvi::models {

template <class T>
data::FeatureStats chunked_column_stats(const data::RowMatrix<T>& x, Eigen::Index rows,
                                        const LocalChunks& chunks, reduce::ChunkReducer& reducer) {
  const Eigen::Index D = x.cols();
  auto chunk_rows = [&](Eigen::Index chunk) {
    return Eigen::Ref<const data::RowMatrix<T>>(x.middleRows(chunks.begin(chunk), chunks.count(chunk)));
  };
  data::FeatureStats s;
  s.rows = rows;
  // A few flops per value: small data (10^4 rows) is summed on one thread, since an OpenMP team
  // woken for it spins on, after each of the two passes, for longer than the sums take.
  const double flops = 3.0 * static_cast<double>(rows) * static_cast<double>(D);
  // Pass 1: sums per chunk; the extremes are exact in any order, so a max-reduction does.
  Eigen::VectorXd sum(D);
  reducer.sum(
      D,
      [&](int, Eigen::Index chunk, double* partial) {
        Eigen::VectorXd part, lo, hi;
        data::column_sums<T>(chunk_rows(chunk), part, lo, hi);
        Eigen::Map<Eigen::VectorXd>(partial, D) = part;
      },
      sum.data(), flops);
  s.mean = sum / static_cast<double>(rows);
  Eigen::VectorXd sum_local, lo, hi;
  data::column_sums<T>(x, sum_local, lo, hi);
  Eigen::VectorXd neg_lo = -lo;
  reducer.comm().allreduce_max(hi.data(), static_cast<int>(D));
  reducer.comm().allreduce_max(neg_lo.data(), static_cast<int>(D));
  s.max = hi;
  s.min = -neg_lo;
  // Pass 2: squared deviations from the global mean.
  Eigen::VectorXd ss(D);
  reducer.sum(
      D,
      [&](int, Eigen::Index chunk, double* partial) {
        Eigen::Map<Eigen::VectorXd>(partial, D) = data::squared_deviation_sums<T>(chunk_rows(chunk), s.mean);
      },
      ss.data(), flops);
  s.sd = rows >= 2 ? Eigen::VectorXd((ss / static_cast<double>(rows - 1)).cwiseSqrt())
                   : Eigen::VectorXd::Zero(D);
  return s;
}

template data::FeatureStats chunked_column_stats<double>(const data::RowMatrix<double>&, Eigen::Index,
                                                         const LocalChunks&, reduce::ChunkReducer&);
template data::FeatureStats chunked_column_stats<float>(const data::RowMatrix<float>&, Eigen::Index,
                                                        const LocalChunks&, reduce::ChunkReducer&);

}  // namespace bvi::models
