#include "models/shard_standardize.hpp"

#include <charconv>
#include <limits>

#include "common/error.hpp"
#include "models/data/text_excerpt.hpp"

namespace bvi::models {

namespace {

template <class T>
Eigen::Ref<const data::RowMatrix<T>> chunk_rows(const data::Dataset<T>& d, const reduce::ShardPlan& plan,
                                                Eigen::Index chunk) {
  const Eigen::Index begin = plan.chunk_begin_row(chunk) - d.first_row;
  return d.x.middleRows(begin, plan.chunk_end_row(chunk) - plan.chunk_begin_row(chunk));
}

std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

template <class T>
data::FeatureStats global_feature_stats(const data::Dataset<T>& d, reduce::ChunkReducer& reducer) {
  const Eigen::Index D = d.x.cols();
  const reduce::ShardPlan& plan = reducer.plan();
  data::FeatureStats s;
  s.rows = plan.total_rows;
  // Pass 1: sums per chunk; the extremes are exact in any order, so a max-reduction does.
  Eigen::VectorXd sum(D);
  reducer.sum(
      D,
      [&](int, Eigen::Index chunk, double* partial) {
        Eigen::VectorXd part, lo, hi;
        data::column_sums<T>(chunk_rows(d, plan, chunk), part, lo, hi);
        Eigen::Map<Eigen::VectorXd>(partial, D) = part;
      },
      sum.data());
  s.mean = sum / static_cast<double>(s.rows);
  Eigen::VectorXd sum_local, lo, hi;
  data::column_sums<T>(d.x, sum_local, lo, hi);
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
        Eigen::Map<Eigen::VectorXd>(partial, D) = data::squared_deviation_sums<T>(chunk_rows(d, plan, chunk), s.mean);
      },
      ss.data());
  s.sd = s.rows >= 2 ? Eigen::VectorXd((ss / static_cast<double>(s.rows - 1)).cwiseSqrt())
                     : Eigen::VectorXd::Zero(D);
  return s;
}

template <class T>
void standardize_shards(data::Dataset<T>& d, reduce::ChunkReducer& reducer) {
  const data::FeatureStats s = global_feature_stats(d, reducer);
  for (Eigen::Index j = 0; j < d.x.cols(); ++j)
    if (s.constant(j))
      throw data_error(file_line(d.path, 1), "feature " + data::quoted_excerpt(d.feature_names[static_cast<size_t>(j)]) +
                                                 " is constant (every value is " + shortest(s.min[j]) +
                                                 "), so it cannot be standardized");
  data::apply_standardization(d.x, s.mean, s.sd);
  d.center = s.mean;
  d.scale = s.sd;
}

template data::FeatureStats global_feature_stats<double>(const data::Dataset<double>&, reduce::ChunkReducer&);
template data::FeatureStats global_feature_stats<float>(const data::Dataset<float>&, reduce::ChunkReducer&);
template void standardize_shards<double>(data::Dataset<double>&, reduce::ChunkReducer&);
template void standardize_shards<float>(data::Dataset<float>&, reduce::ChunkReducer&);

}  // namespace bvi::models
