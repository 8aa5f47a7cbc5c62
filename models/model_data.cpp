#include "models/model_data.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include "common/error.hpp"
#include "common/number_text.hpp"
#include "inference/ad/ops/constrain.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "inference/reduce/collective_error.hpp"
#include "models/chunk_stats.hpp"
#include "models/data/csv_reader.hpp"
#include "models/data/levels.hpp"
#include "models/data/table_reader.hpp"
#include "models/data/text_excerpt.hpp"
#include "models/design/column_kinds.hpp"
#include "models/design/fill_design.hpp"
#include "models/design/many_levels.hpp"
#include "models/likelihoods/likelihood.hpp"
#include "models/problem.hpp"
#include "models/problem_shape.hpp"
#include "models/spec/schema.hpp"

namespace bvi::models {

namespace {

// The likelihood's checks of the response (and of the response against its trials), without a
// model: a likelihood built on a layout of its own parameters and an empty beta.
std::shared_ptr<const Likelihood> probe_likelihood(const std::string& name, const spec::ModelConfig& model) {
  ParameterLayout layout;
  // categorical_logit with /model/categories: K is known, so a category above it is refused here.
  if (name == "categorical_logit")
    layout.set_categories(static_cast<int>(model.categories), static_cast<int>(model.reference_category));
  layout.add({"beta", 0, 0, true, {}, Support::real, {}});
  for (const auto& p : likelihood_parameters(name)) {
    ParameterBlock b{p.name, 0, 1, false, {}, Support::positive, {}};
    // The ordinal likelihoods with /model/categories: K is known (the ordered transform tells the
    // likelihood so), so a category above it is refused here.
    if (p.constraint == "ordered" && model.categories > 1) {
      b.size = static_cast<Eigen::Index>(model.categories) - 1;
      b.is_vector = true;
      b.transforms = ad::ordered_block(b.size);
    }
    layout.add(std::move(b));
  }
  return make_likelihood(name, layout, {});
}

// What every rank reads alone: the design planned against the header, the plan, its own rows.
template <class T>
struct LocalRead {
  design::Design design;
  reduce::ShardPlan plan;
  data::Table<T> table;
  Eigen::Index records = 0;
  int trials_slot = -1, offset_slot = -1, exposure_slot = -1, weight_slot = -1;
  std::vector<int> numeric_vars, categorical_vars;  // design variables in the table's column order
};

// The kinds of the columns whose kind comes from their values, once settled from the whole file:
// header index -> categorical (models/design/column_kinds.hpp).
using SettledKinds = std::map<int, bool>;

// With `text_only`, only the categorical columns are read (probe_model_design): no numeric value,
// response or extra column is parsed or checked. Without `settled`, the kinds not declared are
// guessed from the first values and those columns tallied (settle_kinds judges them); with it,
// they are as it says.
template <class T>
LocalRead<T> read_local(const spec::Config& config, const Likelihood& lik, reduce::Communicator& comm,
                        Eigen::Index block_rows, bool text_only, const SettledKinds* settled) {
  LocalRead<T> r;
  data::CsvReader reader(config.data.csv);
  const std::string header_place = file_line(config.data.csv, 1);
  design::check_formula_columns(config.model, reader.columns());
  // The response and the likelihood's columns, each a column of its own.
  data::DataSpec spec{config.data.csv,    config.data.response, std::vector<std::string>{}, false,
                      config.data.trials, config.data.offset,   config.data.exposure, config.data.weights};
  const data::ColumnSelection extras = data::select_columns(reader, spec);
  reader.scan();
  r.design = design::plan_design(
      config, reader.columns(),
      [&reader, settled](const std::vector<int>& cols) {
        if (!settled) return design::first_value_is_text(reader, cols);
        std::vector<bool> text;
        for (int c : cols) text.push_back(settled->at(c));
        return text;
      },
      header_place);
  for (const auto& v : r.design.variables) {
    for (int c : {extras.response, extras.trials, extras.offset, extras.exposure, extras.weights})
      if (v.column == c)
        throw data_error(header_place, "column " + data::quoted_excerpt(v.name) +
                                           " is both a predictor and the response (or the trials, offset, "
                                           "exposure or weights column)");
  }
  r.records = reader.records();
  if (r.records == 0) throw data_error(file_line(config.data.csv, reader.first_data_line()), "no data rows");
  r.numeric_vars = r.design.numeric_variables();
  r.categorical_vars = r.design.categorical_variables();
  // Rows per block from the number of variables, the design's width before the levels are known
  // (the same as its width for numeric models). Depends on the config and the header alone.
  const auto width = static_cast<Eigen::Index>(r.design.variables.size());
  r.plan = reduce::ShardPlan::make(r.records, block_rows > 0 ? block_rows : default_block_rows(width));

  data::TableSpec ts;
  for (int v : r.numeric_vars) {
    const design::Variable& var = r.design.variables[static_cast<std::size_t>(v)];
    ts.numeric.push_back(var.column);
    ts.tally_numeric.push_back(!settled && var.kind_from_data);
  }
  for (int v : r.categorical_vars) {
    const design::Variable& var = r.design.variables[static_cast<std::size_t>(v)];
    ts.text.push_back(var.column);
    ts.tally_text.push_back(!settled && var.kind_from_data);
  }
  ts.response = extras.response;
  ts.check = [&lik](double y) { return lik.check_response(y); };
  ts.response_labels = config.data.levels;
  ts.first_label_value = spec::first_level_value(config.model.likelihood);
  if (spec::has_cutpoints(config.model.likelihood))
    ts.response_hint = "(categories as text need /data/levels: the labels in order, lowest first)";
  else if (config.model.likelihood == "categorical_logit")
    ts.response_hint = "(categories as text need /data/levels: the labels, the reference category first)";
  else if (spec::first_level_value(config.model.likelihood) == 0.0)
    ts.response_hint = "(a binary response as text needs /data/levels: [failure, success], read as 0 and 1)";
  auto add_extra = [&](int column, data::ResponseCheck check) {
    if (column < 0) return -1;
    ts.extras.push_back({column, std::move(check)});
    return static_cast<int>(ts.extras.size()) - 1;
  };
  r.trials_slot = add_extra(extras.trials, data::check_trials);
  r.offset_slot = add_extra(extras.offset, {});
  r.exposure_slot = add_extra(extras.exposure, data::check_exposure);
  r.weight_slot = add_extra(extras.weights, data::check_weight);
  if (r.trials_slot >= 0)
    ts.row_check = [&lik, slot = r.trials_slot](double y, const double* e) {
      return lik.check_response(y, e[slot]);
    };
  const Eigen::Index first = r.plan.first_row(comm.rank(), comm.size());
  const Eigen::Index last = r.plan.last_row(comm.rank(), comm.size());
  if (text_only) {
    data::TableSpec text;
    text.text = ts.text;
    text.tally_text = ts.tally_text;
    if (!text.text.empty()) r.table = data::read_table<T>(reader, text, first, last, r.plan.chunk_rows);
    return r;
  }
  r.table = data::read_table<T>(reader, ts, first, last, r.plan.chunk_rows);
  return r;
}

// The kinds of the columns guessed from their first values, judged from the whole file's tallies:
// nothing when every guess holds (the usual case: one reduction of counts), else every such
// column's settled kind, to read the table again with. A column of numbers with a few cells that
// are not is a data error at the first of them. Collective; the same verdict on every rank.
template <class T>
std::optional<SettledKinds> settle_kinds(const LocalRead<T>& r, const std::string& path,
                                         reduce::Communicator& comm) {
  std::vector<int> vars;  // the variables tallied, in the order of `local`
  std::vector<data::CellTally> local;
  const data::Table<T>& t = r.table;
  auto take = [&](const std::vector<int>& of, const std::vector<data::CellTally>& tallies) {
    for (std::size_t k = 0; k < of.size(); ++k)
      if (r.design.variables[static_cast<std::size_t>(of[k])].kind_from_data) {
        vars.push_back(of[k]);
        local.push_back(k < tallies.size() ? tallies[k] : data::CellTally());
      }
  };
  take(r.numeric_vars, t.numeric_tallies);  // none in the probe: its guesses of numbers hold
  take(r.categorical_vars, t.text_tallies);
  const std::vector<data::CellTally> all = data::gather_tallies(local, comm);
  return reduce::collectively(comm, [&]() -> std::optional<SettledKinds> {
    SettledKinds kinds;
    bool changed = false;
    for (std::size_t k = 0; k < vars.size(); ++k) {
      const design::Variable& v = r.design.variables[static_cast<std::size_t>(vars[k])];
      const bool categorical = design::settle_column_kind(all[k], v.name, path);
      kinds[v.column] = categorical;
      changed = changed || categorical != v.categorical;
    }
    if (!changed) return std::nullopt;
    return kinds;
  });
}

// read_local, then the kinds settled: read again when a guess did not hold. Collective.
template <class T>
LocalRead<T> read_settled(const spec::Config& config, const Likelihood& lik, reduce::Communicator& comm,
                          Eigen::Index block_rows, bool text_only = false) {
  LocalRead<T> r = reduce::collectively(
      comm, [&] { return read_local<T>(config, lik, comm, block_rows, text_only, nullptr); });
  const std::optional<SettledKinds> kinds = settle_kinds(r, config.data.csv, comm);
  if (!kinds) return r;
  r = LocalRead<T>();  // its table freed before the next is read
  return reduce::collectively(
      comm, [&] { return read_local<T>(config, lik, comm, block_rows, text_only, &*kinds); });
}

// Missing values over all ranks: the total, and the first one's line and description (from the
// lowest rank that has any, which holds the earliest rows).
struct MissingReport {
  Eigen::Index count = 0;
  long line = 0;
  std::string what;
};

template <class T>
MissingReport report_missing(const data::Table<T>& t, reduce::Communicator& comm) {
  MissingReport m;
  std::vector<double> counts(static_cast<std::size_t>(comm.size()));
  const double mine = static_cast<double>(t.missing);
  comm.allgatherv(&mine, std::vector<long>(static_cast<std::size_t>(comm.size()), 1), counts.data());
  int owner = -1;
  for (int r = 0; r < comm.size(); ++r) {
    m.count += static_cast<Eigen::Index>(counts[static_cast<std::size_t>(r)]);
    if (owner < 0 && counts[static_cast<std::size_t>(r)] > 0) owner = r;
  }
  if (owner >= 0) {
    std::string msg =
        comm.rank() == owner ? std::to_string(t.first_missing_line) + "\n" + t.first_missing_what : "";
    comm.broadcast(msg, owner);
    const auto nl = msg.find('\n');
    m.line = std::stol(msg.substr(0, nl));
    m.what = msg.substr(nl + 1);
  }
  return m;
}

// The categorical variables' levels over the whole file (into the design, its columns expanded)
// and every local row's code remapped to them. `kinds_settled`: every variable's kind is final, so
// a reference level on a numeric one is refused (a probe that reads text columns alone keeps the
// first-value guess of a column that is text further down). Collective.
template <class T>
std::vector<data::ColumnLevels> settle_levels(LocalRead<T>& r, reduce::Communicator& comm,
                                              bool kinds_settled) {
  std::vector<data::ColumnLevels> levels = data::gather_levels(r.table.levels, comm);
  reduce::collectively(comm, [&] {
    for (const design::Variable& v : r.design.variables)
      if (kinds_settled && !v.reference_level.empty() && !v.categorical)
        throw config_error(spec::child_pointer("/data/reference_levels", v.name),
                           "'" + v.name +
                               "' is numeric; a reference level applies to a categorical variable of "
                               "the model (factor(x) in a formula, or /data/categorical, reads it as one)");
    for (std::size_t c = 0; c < levels.size(); ++c) {
      design::Variable& v = r.design.variables[static_cast<std::size_t>(r.categorical_vars[c])];
      if (!v.reference_level.empty())
        data::move_first(levels[c], v.reference_level, v.name,
                         spec::child_pointer("/data/reference_levels", v.name));
      v.levels = levels[c].names;
      v.numeric_levels = levels[c].numeric;
      for (auto& code : r.table.codes[c]) code = levels[c].remap[static_cast<std::size_t>(code)];
    }
    design::expand_columns(r.design);
  });
  return levels;
}

// A grouping factor's groups over the whole file (a level of its variable, or an observed
// combination of several) and each local row's group index. Collective.
template <class T>
std::vector<std::string> group_levels(const design::Group& g, const LocalRead<T>& r,
                                      const std::vector<data::ColumnLevels>& levels, reduce::Communicator& comm,
                                      std::vector<std::int32_t>& level) {
  auto codes_of = [&r](int v) -> const std::vector<std::int32_t>& {
    const auto c = static_cast<std::size_t>(
        std::find(r.categorical_vars.begin(), r.categorical_vars.end(), v) - r.categorical_vars.begin());
    return r.table.codes[c];
  };
  if (g.by.size() == 1) {
    level = codes_of(g.by[0]);
    return r.design.variables[static_cast<std::size_t>(g.by[0])].levels;
  }
  std::vector<std::int32_t> tuples;
  tuples.reserve(static_cast<std::size_t>(r.table.kept) * g.by.size());
  std::vector<const data::ColumnLevels*> parts;
  for (int v : g.by) {
    const auto c = static_cast<std::size_t>(
        std::find(r.categorical_vars.begin(), r.categorical_vars.end(), v) - r.categorical_vars.begin());
    parts.push_back(&levels[c]);
  }
  for (Eigen::Index i = 0; i < r.table.kept; ++i)
    for (int v : g.by) tuples.push_back(codes_of(v)[static_cast<std::size_t>(i)]);
  return data::gather_combinations(tuples, g.by.size(), parts, comm, level);
}

std::string rows_phrase(Eigen::Index n) {
  return std::to_string(n) + (n == 1 ? " row" : " rows");
}

}  // namespace

bool design_is_numeric_variables(const design::Design& design) {
  const std::vector<int> numeric = design.numeric_variables();
  if (design.columns.size() != numeric.size()) return false;
  for (std::size_t j = 0; j < design.columns.size(); ++j) {
    const auto& f = design.columns[j].factors;
    if (f.size() != 1 || f[0].level >= 0 || f[0].variable != numeric[j]) return false;
  }
  return true;
}

template <class T>
ModelData<T> load_model_data(const spec::Config& config, reduce::Communicator& comm, Eigen::Index block_rows,
                             int threads) {
  const std::shared_ptr<const Likelihood> lik = probe_likelihood(config.model.likelihood, config.model);
  LocalRead<T> r = read_settled<T>(config, *lik, comm, block_rows);
  design::Design& design = r.design;
  data::Table<T>& table = r.table;
  const std::string& path = config.data.csv;

  // Rows with missing values: refused, or dropped with their number reported.
  long kept_local = static_cast<long>(table.kept);
  comm.allreduce_sum(&kept_local, 1);
  const Eigen::Index kept = kept_local;
  const MissingReport missing = report_missing(table, comm);
  reduce::collectively(comm, [&] {
    if (missing.count > 0 && config.data.missing == "error")
      throw data_error(
          file_line(path, missing.line),
          missing.what + "; " + std::to_string(missing.count) + " of " + std::to_string(r.records) +
              (missing.count == 1 ? " rows has a missing value" : " rows have missing values") +
              " (empty, NA or NaN) in the columns the model uses (set /data/missing to \"drop\" to "
              "leave them out)");
    if (kept == 0)
      throw data_error(file_line(path, missing.line),
                       "every row has a missing value in the columns the model uses (" + missing.what + ")");
  });

  // Categorical levels over the whole file, and every row's global level index.
  const std::vector<data::ColumnLevels> levels = settle_levels(r, comm, /*kinds_settled=*/true);
  reduce::collectively(comm, [&] {
    design::check_many_levels(design, static_cast<long>(kept), config.data.allow_many_levels, path);
  });

  // The chunks' local rows.
  LocalChunks chunks;
  chunks.first_chunk = r.plan.first_chunk(comm.rank(), comm.size());
  chunks.offsets.assign(1, 0);
  for (Eigen::Index k : table.kept_per_chunk) chunks.offsets.push_back(chunks.offsets.back() + k);
  reduce::ChunkReducer reducer(r.plan, comm, threads);

  // Standardized numeric variables, with whole-file statistics.
  if (config.data.standardize && table.numeric.cols() > 0) {
    const data::FeatureStats s = chunked_column_stats(table.numeric, kept, chunks, reducer);
    reduce::collectively(comm, [&] {
      for (Eigen::Index j = 0; j < table.numeric.cols(); ++j)
        if (s.constant(j))
          throw data_error(
              file_line(path, 1),
              "feature " +
                  data::quoted_excerpt(design.variables[static_cast<std::size_t>(r.numeric_vars[j])].name) +
                  " is constant (every value is " + shortest_text(s.min[j]) + "), so it cannot be standardized");
    });
    data::apply_standardization(table.numeric, s.mean, s.sd);
    for (Eigen::Index j = 0; j < table.numeric.cols(); ++j) {
      design::Variable& v = design.variables[static_cast<std::size_t>(r.numeric_vars[j])];
      v.center = s.mean[j];
      v.scale = s.sd[j];
    }
  }

  ModelData<T> out;
  data::Dataset<T>& d = out.data;
  d.path = path;
  d.response_name = config.data.response;
  d.response_levels = config.data.levels;
  d.feature_names = design.column_names();
  d.total_rows = kept;
  d.file_rows = r.records;
  d.first_row = r.plan.first_row(comm.rank(), comm.size());
  d.first_chunk = chunks.first_chunk;
  d.chunk_offsets = chunks.offsets;
  d.dropped_rows = missing.count;
  d.first_dropped_line = missing.line;
  d.first_dropped_what = missing.what;
  d.y = std::move(table.y);
  if (r.trials_slot >= 0) d.trials = table.extras.col(r.trials_slot);
  if (r.weight_slot >= 0) {
    d.weight = table.extras.col(r.weight_slot);
    // A row of weight 0 is left out, so rows that all weigh 0 are no rows: a fit would return the
    // prior, and `check` report data there is none of. Counted, not summed: the weights are
    // non-negative (the reader refused the others), so the total is 0 exactly when no row weighs
    // more, and a count is the same on every rank whatever the sharding.
    long weighing = static_cast<long>((d.weight.array() > 0.0).count());
    comm.allreduce_sum(&weighing, 1);
    reduce::collectively(comm, [&] {
      if (weighing == 0)
        throw data_error(file_line(path, 1), "every row weighs 0 (weights column " +
                                                 data::quoted_excerpt(*config.data.weights) + ", " +
                                                 rows_phrase(kept) + " used): rows of weight 0 are left out, so "
                                                 "there is no data");
    });
  }
  if (r.offset_slot >= 0 || r.exposure_slot >= 0) {
    d.offset = Eigen::VectorXd::Zero(table.kept);
    if (r.offset_slot >= 0) d.offset += table.extras.col(r.offset_slot);
    // std::log row by row, not Eigen's vectorized log: the same row must get the same bits
    // whichever rank loads it.
    if (r.exposure_slot >= 0)
      for (Eigen::Index i = 0; i < table.kept; ++i) d.offset[i] += std::log(table.extras(i, r.exposure_slot));
  }

  design::RowSource<T> source;
  source.numeric = &table.numeric;
  source.numeric_column.assign(design.variables.size(), -1);
  source.levels.assign(design.variables.size(), nullptr);
  for (std::size_t k = 0; k < r.numeric_vars.size(); ++k)
    source.numeric_column[static_cast<std::size_t>(r.numeric_vars[k])] = static_cast<int>(k);
  for (std::size_t k = 0; k < r.categorical_vars.size(); ++k)
    source.levels[static_cast<std::size_t>(r.categorical_vars[k])] = &table.codes[k];

  // The grouping factors: each row's group, the groups over the whole file, the slopes.
  for (const design::Group& g : design.groups) {
    data::GroupData<T> gd;
    gd.label = g.label;
    gd.ident = g.ident;
    gd.intercept = g.intercept;
    gd.correlated = g.correlated;
    for (const auto& c : g.slopes) gd.slope_names.push_back(c.name);
    gd.levels = group_levels(g, r, levels, comm, gd.level);
    design::fill_columns(g.slopes, source, table.kept, gd.slopes);
    d.groups.push_back(std::move(gd));
  }
  reduce::collectively(comm, [&] {
    for (std::size_t f = 0; f < d.groups.size(); ++f) {
      design.groups[f].levels = d.groups[f].levels;
      if (d.groups[f].levels.size() < 2)
        throw data_error(
            file_line(path, 1),
            "grouping factor " + data::quoted_excerpt(d.groups[f].label) + " has a single level (" +
                data::quoted_excerpt(d.groups[f].levels.empty() ? "" : d.groups[f].levels[0]) + ") in the " +
                rows_phrase(kept) + " used: a group-level term needs at least 2 groups (drop the term)");
    }
  });

  // The population-level design: the numeric columns themselves when the terms are exactly the
  // numeric variables in order (no copy), else their products and indicators.
  if (design_is_numeric_variables(design))
    d.x = std::move(table.numeric);
  else
    design::fill_columns(design.columns, source, table.kept, d.x);
  out.design = std::move(design);
  out.plan = r.plan;
  return out;
}

DesignProbe probe_model_design(const spec::Config& config, reduce::Communicator& comm, Eigen::Index block_rows) {
  const std::shared_ptr<const Likelihood> lik = probe_likelihood(config.model.likelihood, config.model);
  // float: no numeric column is read, the type only names the table.
  LocalRead<float> r = read_settled<float>(config, *lik, comm, block_rows, true);
  const std::vector<data::ColumnLevels> levels = settle_levels(r, comm, /*kinds_settled=*/false);
  DesignProbe out;
  std::vector<std::vector<std::int32_t>> level(r.design.groups.size());
  for (std::size_t f = 0; f < r.design.groups.size(); ++f)
    r.design.groups[f].levels = group_levels(r.design.groups[f], r, levels, comm, level[f]);
  std::vector<const std::vector<std::int32_t>*> level_ptrs;
  for (const auto& l : level) level_ptrs.push_back(&l);
  std::vector<Eigen::Index> offsets{0};
  for (Eigen::Index k : r.table.kept_per_chunk) offsets.push_back(offsets.back() + k);
  out.chunk_levels = ChunkLevelCounts::count(level_ptrs, offsets, r.plan.first_chunk(comm.rank(), comm.size()),
                                             r.plan.n_chunks, comm);
  out.design = std::move(r.design);
  out.plan = r.plan;
  out.records = r.records;
  out.trials = r.trials_slot >= 0;
  out.offset = r.offset_slot >= 0 || r.exposure_slot >= 0;
  out.weights = r.weight_slot >= 0;
  return out;
}

template ModelData<double> load_model_data<double>(const spec::Config&, reduce::Communicator&, Eigen::Index,
                                                   int);
template ModelData<float> load_model_data<float>(const spec::Config&, reduce::Communicator&, Eigen::Index,
                                                 int);

}  // namespace bvi::models
