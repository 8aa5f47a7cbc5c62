#include "models/problem_shape.hpp"

#include "common/error.hpp"
#include "inference/reduce/collective_error.hpp"
#include "models/data/csv_reader.hpp"
#include "models/data/dataset.hpp"
#include "models/model.hpp"
#include "models/problem.hpp"

namespace bvi::models {

ProblemShape probe_problem(const spec::Config& config, reduce::Communicator& comm, Index block_rows) {
  return reduce::collectively(comm, [&] {
    // The same steps, in the same order, as load_problem's, so the same input fails the same way.
    data::DataSpec spec{config.data.csv,    config.data.response, config.data.features, false,
                        config.data.trials, config.data.offset,   config.data.exposure};
    data::CsvReader reader(spec.path);
    const data::ColumnSelection columns = data::select_columns(reader, spec);
    const Model model = Model::build(config.model, columns.feature_names);
    ProblemShape s;
    s.total_rows = reader.scan().records;
    if (s.total_rows == 0) throw data_error(file_line(spec.path, reader.first_data_line()), "no data rows");
    s.features = static_cast<Index>(columns.features.size());
    s.dim = model.dim();
    s.plan =
        reduce::ShardPlan::make(s.total_rows, block_rows > 0 ? block_rows : default_block_rows(s.features));
    s.rows = s.plan.last_row(comm.rank(), comm.size()) - s.plan.first_row(comm.rank(), comm.size());
    s.extra_columns = (columns.trials >= 0 ? 1 : 0) + (columns.offset >= 0 || columns.exposure >= 0 ? 1 : 0);
    // Zero rows: whether the likelihood has such terms at all (it writes nothing).
    s.row_constants = model.likelihood().log_constants(nullptr, nullptr, 0, nullptr);
    s.config = config;
    spec::resolve_automatic(s.config, s.dim);
    return s;
  });
}

}  // namespace bvi::models
