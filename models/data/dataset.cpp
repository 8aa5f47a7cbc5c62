#include "models/data/dataset.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "common/error.hpp"
#include "common/number_text.hpp"
#include "models/data/csv_reader.hpp"
#include "models/data/standardize.hpp"
#include "models/data/text_excerpt.hpp"

namespace bvi::data {

namespace {

std::string fold(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A name that is missing is usually there with other case or padding ("Y", " y" after
// "x, y" in the header); naming it saves the user a trip through the file.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& columns) {
  const std::string want = fold(name);
  for (const std::string& c : columns)
    if (fold(c) == want) return " (did you mean " + quoted_excerpt(c) + "?)";
  return "";
}

}  // namespace

ColumnSelection select_columns(const CsvReader& reader, const DataSpec& spec) {
  const std::vector<std::string>& columns = reader.columns();
  const std::string where = file_line(reader.path(), 1);
  std::unordered_map<std::string, int> count;
  for (const std::string& c : columns) ++count[c];
  // A name must pick exactly one column: with two "x1" columns either choice would be a guess.
  auto find = [&](const std::string& name, const std::string& role) {
    const auto it = count.find(name);
    if (it == count.end())
      throw data_error(where, role + " column " + quoted_excerpt(name) + " is not in the header" +
                                  did_you_mean(name, columns));
    if (it->second > 1)
      throw data_error(where, role + " column " + quoted_excerpt(name) + " appears " +
                                  std::to_string(it->second) + " times in the header");
    int i = 0;
    while (columns[static_cast<std::size_t>(i)] != name) ++i;
    return i;
  };

  ColumnSelection sel;
  sel.response = find(spec.response, "response");
  // The columns some likelihoods read besides: each names one column of its own.
  struct Extra {
    const std::optional<std::string>& name;
    const char* role;
    int& index;
  };
  const Extra extras[] = {{spec.trials, "trials", sel.trials},
                          {spec.offset, "offset", sel.offset},
                          {spec.exposure, "exposure", sel.exposure},
                          {spec.weights, "weights", sel.weights}};
  std::unordered_map<std::string, std::string> role_of{{spec.response, "the response"}};
  for (const Extra& e : extras) {
    if (!e.name) continue;
    const auto [it, fresh] = role_of.emplace(*e.name, std::string("the ") + e.role + " column");
    if (!fresh)
      throw data_error(where, "column " + quoted_excerpt(*e.name) + " is both " + it->second + " and the " +
                                  e.role + " column");
    e.index = find(*e.name, e.role);
  }
  if (spec.features) {
    std::unordered_map<std::string, int> listed;
    for (const std::string& name : *spec.features) {
      if (const auto it = role_of.find(name); it != role_of.end())
        throw data_error(where,
                         "column " + quoted_excerpt(name) + " is both " + it->second + " and a feature");
      if (listed[name]++ > 0) throw data_error(where, "feature " + quoted_excerpt(name) + " is listed twice");
      sel.features.push_back(find(name, "feature"));
      sel.feature_names.push_back(name);
    }
  } else {
    for (int i = 0; i < static_cast<int>(columns.size()); ++i) {
      if (i == sel.response || i == sel.trials || i == sel.offset || i == sel.exposure || i == sel.weights)
        continue;
      const std::string& name = columns[static_cast<std::size_t>(i)];
      sel.features.push_back(find(name, "feature"));
      sel.feature_names.push_back(name);
    }
  }
  return sel;
}

std::string check_trials(double v) {
  return v >= 0.0 && std::floor(v) == v ? std::string()
                                        : "trials must be a non-negative integer, got " + shortest_text(v);
}

std::string check_exposure(double v) {
  return v > 0.0 ? std::string() : "exposure must be positive, got " + shortest_text(v);
}

std::string check_weight(double v) {
  return v >= 0.0 && std::isfinite(v) ? std::string()
                                       : "weight must be a finite number >= 0, got " + shortest_text(v);
}

template <class T>
Dataset<T> load_dataset(const DataSpec& spec, const ResponseCheck& check, std::optional<RowRange> rows,
                        const TrialsCheck& against_trials) {
  CsvReader reader(spec.path);
  ColumnSelection sel = select_columns(reader, spec);
  const RowIndex& index = reader.scan();
  if (index.records == 0)
    throw data_error(file_line(spec.path, reader.first_data_line()), "no data rows after the header");
  const RowRange range = rows.value_or(RowRange{0, index.records});
  if (range.first < 0 || range.count < 0 || range.first + range.count > index.records)
    throw std::out_of_range("load_dataset: rows [" + std::to_string(range.first) + ", +" +
                            std::to_string(range.count) + ") outside the " + std::to_string(index.records) +
                            " rows of " + spec.path);

  Dataset<T> d;
  d.path = spec.path;
  d.response_name = spec.response;
  d.feature_names = std::move(sel.feature_names);
  d.total_rows = index.records;
  d.first_row = range.first;
  d.x.resize(range.count, static_cast<Eigen::Index>(sel.features.size()));
  d.y.resize(range.count);

  // Trials, offset and exposure are read as double whatever T is, each checked on its line.
  std::vector<ExtraColumn> extras;
  auto add_extra = [&](int column, ResponseCheck check_value) {
    if (column < 0) return -1;
    extras.push_back({column, std::move(check_value)});
    return static_cast<int>(extras.size()) - 1;
  };
  const int trials_slot = add_extra(sel.trials, check_trials);
  const int offset_slot = add_extra(sel.offset, {});
  const int exposure_slot = add_extra(sel.exposure, check_exposure);
  const int weight_slot = add_extra(sel.weights, check_weight);
  RowCheck row_check;
  if (trials_slot >= 0 && against_trials)
    row_check = [&against_trials, trials_slot](double y, const double* e) {
      return against_trials(y, e[trials_slot]);
    };
  RowMatrix<double> extra_values(range.count, static_cast<Eigen::Index>(extras.size()));
  reader.read_rows<T>(range.first, range.first + range.count, sel.features, sel.response, check, extras,
                      row_check, d.x.data(), d.y.data(), extra_values.data());
  if (trials_slot >= 0) d.trials = extra_values.col(trials_slot);
  if (weight_slot >= 0) d.weight = extra_values.col(weight_slot);
  if (offset_slot >= 0 || exposure_slot >= 0) {
    d.offset = Eigen::VectorXd::Zero(range.count);
    if (offset_slot >= 0) d.offset += extra_values.col(offset_slot);
    // std::log row by row, not Eigen's vectorized log: which rows a vectorized loop leaves to its
    // scalar tail depends on where the range starts, and the same row must get the same bits
    // whichever rank loads it.
    if (exposure_slot >= 0)
      for (Eigen::Index i = 0; i < range.count; ++i) d.offset[i] += std::log(extra_values(i, exposure_slot));
  }

  if (spec.standardize) {
    const FeatureStats stats = compute_feature_stats(d.x);
    for (Eigen::Index j = 0; j < d.x.cols(); ++j)
      if (stats.constant(j))
        throw data_error(file_line(spec.path, 1),
                         "feature " + quoted_excerpt(d.feature_names[static_cast<std::size_t>(j)]) +
                             " is constant (every value is " + shortest_text(stats.min[j]) +
                             "), so it cannot be standardized");
    apply_standardization(d.x, stats.mean, stats.sd);
    d.center = stats.mean;
    d.scale = stats.sd;
  }
  return d;
}

template Dataset<float> load_dataset<float>(const DataSpec&, const ResponseCheck&, std::optional<RowRange>,
                                            const TrialsCheck&);
template Dataset<double> load_dataset<double>(const DataSpec&, const ResponseCheck&, std::optional<RowRange>,
                                              const TrialsCheck&);

}  // namespace bvi::data
