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
  // ~256 KiB of float64 features per block, between 64 and 1024 rows.
  return std::clamp<Index>(32768 / std::max<Index>(features, 1), 64, 1024);
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
  spec::resolve_automatic(resolved, model.dim());
  return Problem<T>{std::move(resolved), std::move(model), std::move(ds), plan};
}

template Problem<double> load_problem<double>(const spec::Config&, reduce::Communicator&, const LoadOptions&);
template Problem<float> load_problem<float>(const spec::Config&, reduce::Communicator&, const LoadOptions&);

}  // namespace bvi::models
