#include "models/prediction_rows.hpp"

#include <charconv>
#include <cmath>
#include <memory>
#include <unordered_map>

#include "common/error.hpp"
#include "common/number_text.hpp"
#include "models/data/csv_reader.hpp"
#include "models/data/dataset.hpp"
#include "models/data/parse_number.hpp"
#include "models/data/table_reader.hpp"
#include "models/data/text_excerpt.hpp"
#include "models/design/fill_design.hpp"

namespace bvi::models {

namespace {

std::string canonical_number(const std::string& label) {
  double v = 0;
  if (data::parse_number(label, v) != data::NumberStatus::ok) return label;
  return shortest_text(v);
}

std::string list(const std::vector<std::string>& v, std::size_t max = 8) {
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > max) out += ", ... (" + std::to_string(v.size()) + " levels)";
  return out;
}

}  // namespace

PredictionRowsReader::PredictionRowsReader(const std::string& path, const design::Design& design,
                                           const std::string& response, const spec::DataConfig& data,
                                           const Likelihood& likelihood)
    : path_(path), design_(design), reader_(std::make_unique<data::CsvReader>(path)) {
  std::unordered_map<std::string, int> where;
  for (int i = 0; i < static_cast<int>(reader_->columns().size()); ++i)
    where.emplace(reader_->columns()[i], i);
  const std::string header = file_line(path, 1);
  auto column = [&](const std::string& name, const std::string& what) {
    const auto it = where.find(name);
    if (it == where.end()) throw data_error(header, "no column '" + name + "', " + what);
    return it->second;
  };
  // The variables each role needs: population-level terms and slopes need known levels.
  fixed_.assign(design.variables.size(), false);
  for (const auto& t : design.terms)
    for (int v : t.variables) fixed_[static_cast<std::size_t>(v)] = true;
  for (const auto& g : design.groups)
    for (const auto& t : g.terms)
      for (int v : t.variables) fixed_[static_cast<std::size_t>(v)] = true;

  spec_.keep_records = true;
  // Each column is of the kind the fit settled (design.variables[].categorical), never guessed
  // again from these rows: a label made of digits stays a label, a number column stays numeric.
  spec_.numeric_hint = "(the model was fitted with this column as numeric)";
  for (std::size_t v = 0; v < design.variables.size(); ++v) {
    const design::Variable& var = design.variables[v];
    const int c = column(var.name, "a column the fit was made with");
    (var.categorical ? spec_.text : spec_.numeric).push_back(c);
    (var.categorical ? categorical_vars_ : numeric_vars_).push_back(static_cast<int>(v));
  }
  const auto response_it = where.find(response);
  spec_.response = response_it == where.end() ? -1 : response_it->second;
  spec_.check = [&likelihood](double y) { return likelihood.check_response(y); };
  spec_.response_labels = data.levels;  // the response's labels, as the fit read them
  spec_.first_label_value = spec::first_level_value(likelihood.name());
  auto add_extra = [&](const std::optional<std::string>& name, const char* role, data::ResponseCheck check) {
    if (!name) return -1;
    spec_.extras.push_back(
        {column(*name, std::string("the ") + role + " column, which the model needs for every row"),
         std::move(check)});
    return static_cast<int>(spec_.extras.size()) - 1;
  };
  trials_slot_ = add_extra(data.trials, "trials", data::check_trials);
  offset_slot_ = add_extra(data.offset, "offset", {});
  exposure_slot_ = add_extra(data.exposure, "exposure", data::check_exposure);
  // The weights column is optional here: with it the held-out metrics are weighted.
  if (data.weights && where.count(*data.weights)) {
    spec_.extras.push_back({where.at(*data.weights), data::check_weight});
    weight_slot_ = static_cast<int>(spec_.extras.size()) - 1;
  }
  if (trials_slot_ >= 0 && spec_.response >= 0)
    spec_.row_check = [&likelihood, slot = trials_slot_](double y, const double* e) {
      return likelihood.check_response(y, e[slot]);
    };
  records_ = reader_->scan().records;
}

PredictionRowsReader::~PredictionRowsReader() = default;

long PredictionRowsReader::first_data_line() const {
  return reader_->first_data_line();
}

PredictionRows PredictionRowsReader::read(Eigen::Index begin, Eigen::Index end, Eigen::Index chunk) const {
  const std::string& path = path_;
  const design::Design& design = design_;
  const data::TableSpec& spec = spec_;
  const std::vector<bool>& fixed = fixed_;
  const std::vector<int>& numeric_vars = numeric_vars_;
  const std::vector<int>& categorical_vars = categorical_vars_;
  const int trials_slot = trials_slot_, offset_slot = offset_slot_, exposure_slot = exposure_slot_,
            weight_slot = weight_slot_;
  data::Table<double> t = data::read_table<double>(*reader_, spec, begin, end, chunk);

  PredictionRows out;
  out.records = end - begin;
  out.record = t.records;
  out.missing = t.missing;
  out.first_missing_line = t.first_missing_line;
  out.first_missing_what = t.first_missing_what;
  const Eigen::Index n = t.kept;

  // The fit's levels for every label: unknown ones are an error where the fit has coefficients.
  std::vector<std::vector<std::int32_t>> codes(design.variables.size());
  for (std::size_t c = 0; c < categorical_vars.size(); ++c) {
    const auto v = static_cast<std::size_t>(categorical_vars[c]);
    const design::Variable& var = design.variables[v];
    std::unordered_map<std::string, std::int32_t> index;
    for (std::size_t l = 0; l < var.levels.size(); ++l)
      index.emplace(var.levels[l], static_cast<std::int32_t>(l));
    std::vector<std::int32_t> map;  // local code -> fit level, -1 unseen
    for (const auto& label : t.levels[c].labels()) {
      const auto it = index.find(var.numeric_levels ? canonical_number(label) : label);
      map.push_back(it == index.end() ? -1 : it->second);
    }
    codes[v].resize(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) {
      const std::int32_t local = t.codes[c][static_cast<std::size_t>(i)];
      const std::int32_t level = map[static_cast<std::size_t>(local)];
      if (level < 0 && fixed[v])
        throw data_error(file_line(path, t.lines[static_cast<std::size_t>(i)]),
                         "column " + data::quoted_excerpt(var.name) + ": level " +
                             data::quoted_excerpt(t.levels[c].labels()[static_cast<std::size_t>(local)]) +
                             " is not one of the levels the model was fitted with (" + list(var.levels) +
                             "), so it has no coefficient");
      codes[v][static_cast<std::size_t>(i)] = level;
    }
  }
  // Numeric variables with the fit's standardization.
  for (std::size_t k = 0; k < numeric_vars.size(); ++k) {
    const design::Variable& var = design.variables[static_cast<std::size_t>(numeric_vars[k])];
    if (var.scale > 0)
      for (Eigen::Index i = 0; i < n; ++i)
        t.numeric(i, static_cast<Eigen::Index>(k)) =
            (t.numeric(i, static_cast<Eigen::Index>(k)) - var.center) / var.scale;
  }
  design::RowSource<double> source;
  source.numeric = &t.numeric;
  source.numeric_column.assign(design.variables.size(), -1);
  source.levels.assign(design.variables.size(), nullptr);
  for (std::size_t k = 0; k < numeric_vars.size(); ++k)
    source.numeric_column[static_cast<std::size_t>(numeric_vars[k])] = static_cast<int>(k);
  for (int v : categorical_vars)
    source.levels[static_cast<std::size_t>(v)] = &codes[static_cast<std::size_t>(v)];
  design::fill_columns(design.columns, source, n, out.x);

  for (const auto& g : design.groups) {
    PredictionGroup pg;
    std::unordered_map<std::string, std::int32_t> known, fresh;
    for (std::size_t l = 0; l < g.levels.size(); ++l)
      known.emplace(g.levels[l], static_cast<std::int32_t>(l));
    pg.level.resize(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) {
      // The group's name as the fit wrote it: the levels of its columns joined by ':'.
      std::string name;
      for (std::size_t k = 0; k < g.by.size(); ++k) {
        const auto v = static_cast<std::size_t>(g.by[k]);
        const std::int32_t level = codes[v][static_cast<std::size_t>(i)];
        const auto c = static_cast<std::size_t>(
            std::find(categorical_vars.begin(), categorical_vars.end(), g.by[k]) - categorical_vars.begin());
        const std::string label =
            level >= 0
                ? design.variables[v].levels[static_cast<std::size_t>(level)]
                : t.levels[c].labels()[static_cast<std::size_t>(t.codes[c][static_cast<std::size_t>(i)])];
        name += (k ? ":" : "") + label;
      }
      const auto it = known.find(name);
      if (it != known.end()) {
        pg.level[static_cast<std::size_t>(i)] = it->second;
        continue;
      }
      auto [nit, added] = fresh.emplace(name, static_cast<std::int32_t>(pg.new_levels.size()));
      if (added) pg.new_levels.push_back(name);
      pg.level[static_cast<std::size_t>(i)] = -(nit->second + 1);
    }
    design::fill_columns(g.slopes, source, n, pg.slopes);
    out.groups.push_back(std::move(pg));
  }
  if (spec.response >= 0) out.y = t.y;
  if (trials_slot >= 0) out.trials = t.extras.col(trials_slot);
  if (weight_slot >= 0) out.weight = t.extras.col(weight_slot);
  if (offset_slot >= 0 || exposure_slot >= 0) {
    out.offset = Eigen::VectorXd::Zero(n);
    if (offset_slot >= 0) out.offset += t.extras.col(offset_slot);
    if (exposure_slot >= 0)
      for (Eigen::Index i = 0; i < n; ++i) out.offset[i] += std::log(t.extras(i, exposure_slot));
  }
  return out;
}

PredictionRows read_prediction_rows(const std::string& path, const design::Design& design,
                                    const std::string& response, const spec::DataConfig& data,
                                    const Likelihood& likelihood) {
  const PredictionRowsReader reader(path, design, response, data, likelihood);
  const Eigen::Index records = reader.records();
  if (records == 0) throw data_error(file_line(path, reader.first_data_line()), "no data rows");
  return reader.read(0, records, records);
}

}  // namespace bvi::models
