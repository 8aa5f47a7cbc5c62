#include "models/problem.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "models/data/csv_reader.hpp"

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
  data::DataSpec spec{config.data.csv, config.data.response, config.data.features, config.data.standardize};
  data::CsvReader reader(spec.path);
  const data::ColumnSelection columns = data::select_columns(reader, spec);
  // Build the model first: a config mistake is reported before the data is read.
  Model model = Model::build(config.model, columns.feature_names, {options.fused});
  const Index total = reader.scan().records;
  if (total == 0) throw data_error(file_line(spec.path, reader.first_data_line()), "no data rows");
  const Index features = static_cast<Index>(columns.features.size());
  const reduce::ShardPlan plan = reduce::ShardPlan::make(
      total, options.block_rows > 0 ? options.block_rows : default_block_rows(features));
  const Index first = plan.first_row(comm.rank(), comm.size());
  const Index last = plan.last_row(comm.rank(), comm.size());
  const Likelihood& lik = model.likelihood();
  data::Dataset<T> ds = data::load_dataset<T>(
      spec, [&lik](double y) { return lik.check_response(y); }, data::RowRange{first, last - first});
  spec::Config resolved = config;
  spec::resolve_automatic(resolved, model.dim());
  return Problem<T>{std::move(resolved), std::move(model), std::move(ds), plan};
}

template Problem<double> load_problem<double>(const spec::Config&, reduce::Communicator&, const LoadOptions&);
template Problem<float> load_problem<float>(const spec::Config&, reduce::Communicator&, const LoadOptions&);

}  // namespace bvi::models
