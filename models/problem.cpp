#include "models/problem.hpp"

#include <algorithm>
#include <tuple>

#include "common/error.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "inference/reduce/collective_error.hpp"
#include "models/data/csv_reader.hpp"
#include "models/shard_standardize.hpp"

namespace bvi::models {

Index default_block_rows(Index features) {
  // The fused likelihood cuts a block into cache-sized row tiles itself (bernoulli_logit_glm.cpp),
  // so a block only has to amortize the per-block tape work (rewind, the S x D gradient sum,
  // the draws cast to float): 512 rows are within 3 % of the best measured for D = 10 to 1000
  // (bench_log_joint --profile fused --block-rows R), where 64 rows cost 8 % at D = 1000. The
  // composed path materializes S x block arrays and prefers 64-256 rows, but stays within 1.5x
  // of the reference at 512. At most 4 MiB of float64 features, so that a float block's double
  // copy on the composed path stays small when D is in the ten thousands.
  const Index cap = (Index(4) << 20) / (8 * std::max<Index>(features, 1));
  return std::clamp<Index>(cap, 16, 512);
}

template <class T>
Problem<T> load_problem(const spec::Config& config, reduce::Communicator& comm, const LoadOptions& options) {
  // Everything a single rank may fail at alone (its file handle, a bad row in its range) happens
  // inside collectively(): afterwards all ranks go on, or all throw the same error.
  auto [model, ds, plan] = reduce::collectively(comm, [&] {
    data::DataSpec spec{config.data.csv,   config.data.response, config.data.features, false,
                        config.data.trials, config.data.offset,   config.data.exposure};
    data::CsvReader reader(spec.path);
    const data::ColumnSelection columns = data::select_columns(reader, spec);
    // Build the model first: a config mistake is reported before the data is read.
    Model m = Model::build(config.model, columns.feature_names, {options.fused});
    const Index total = reader.scan().records;
    if (total == 0) throw data_error(file_line(spec.path, reader.first_data_line()), "no data rows");
    const Index features = static_cast<Index>(columns.features.size());
    const reduce::ShardPlan p =
        reduce::ShardPlan::make(total, options.block_rows > 0 ? options.block_rows : default_block_rows(features));
    const Index first = p.first_row(comm.rank(), comm.size());
    const Index last = p.last_row(comm.rank(), comm.size());
    const Likelihood& lik = m.likelihood();
    data::Dataset<T> d = data::load_dataset<T>(
        spec, [&lik](double y) { return lik.check_response(y); }, data::RowRange{first, last - first},
        [&lik](double y, double trials) { return lik.check_response(y, trials); });
    return std::make_tuple(std::move(m), std::move(d), p);
  });
  if (config.data.standardize) {
    reduce::ChunkReducer reducer(plan, comm, options.threads);
    standardize_shards(ds, reducer);
  }
  spec::Config resolved = config;
  spec::resolve_automatic(resolved, model.dim(), ds.total_rows);
  return Problem<T>{std::move(resolved), std::move(model), std::move(ds), plan};
}

template Problem<double> load_problem<double>(const spec::Config&, reduce::Communicator&, const LoadOptions&);
template Problem<float> load_problem<float>(const spec::Config&, reduce::Communicator&, const LoadOptions&);

}  // namespace bvi::models
