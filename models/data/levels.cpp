#include "models/data/levels.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <stdexcept>

#include "common/error.hpp"
#include "common/number_text.hpp"
#include "models/data/parse_number.hpp"
#include "models/data/wire_u64.hpp"

namespace bvi::data {

std::vector<ColumnLevels> gather_levels(const std::vector<LevelDictionary>& local,
                                        reduce::Communicator& comm) {
  std::string mine;
  put_u64(mine, local.size());
  for (const auto& d : local) {
    put_u64(mine, d.size());
    for (const auto& label : d.labels()) {
      put_u64(mine, label.size());
      mine += label;
    }
  }
  std::vector<std::vector<std::string>> all(local.size());
  for (const std::string& msg : reduce::all_strings(mine, comm)) {
    std::size_t at = 0;
    if (get_u64(msg, at, "gather_levels") != local.size())
      throw std::runtime_error("gather_levels: ranks disagree on the columns");
    for (auto& labels : all) {
      const std::uint64_t n = get_u64(msg, at, "gather_levels");
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t len = get_u64(msg, at, "gather_levels");
        if (at + len > msg.size()) throw std::runtime_error("gather_levels: truncated message");
        labels.emplace_back(msg, at, len);
        at += len;
      }
    }
  }
  std::vector<ColumnLevels> out(local.size());
  for (std::size_t c = 0; c < local.size(); ++c) {
    std::vector<std::string>& labels = all[c];
    std::sort(labels.begin(), labels.end());
    labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    ColumnLevels& lv = out[c];
    // Numbers: by value, merged by value, named canonically.
    std::map<std::string, double> value;
    lv.numeric = !labels.empty();
    for (const auto& l : labels) {
      double v = 0;
      if (parse_number(l, v) != NumberStatus::ok) {
        lv.numeric = false;
        break;
      }
      value[l] = v;
    }
    std::map<std::string, std::int32_t> index_of;
    if (lv.numeric) {
      std::vector<double> values;
      for (const auto& [l, v] : value) values.push_back(v + 0.0);
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      for (double v : values) lv.names.push_back(shortest_text(v));
      for (const auto& [l, v] : value)
        index_of[l] = static_cast<std::int32_t>(std::lower_bound(values.begin(), values.end(), v + 0.0) -
                                                values.begin());
    } else {
      lv.names = labels;
      for (std::size_t i = 0; i < labels.size(); ++i) index_of[labels[i]] = static_cast<std::int32_t>(i);
    }
    for (const auto& l : local[c].labels()) lv.remap.push_back(index_of.at(l));
  }
  return out;
}

std::vector<std::string> gather_combinations(const std::vector<std::int32_t>& rows, std::size_t width,
                                             const std::vector<const ColumnLevels*>& parts,
                                             reduce::Communicator& comm, std::vector<std::int32_t>& index) {
  if (width == 0 || rows.size() % width != 0 || parts.size() != width)
    throw std::invalid_argument("gather_combinations: bad shape");
  const std::size_t n = rows.size() / width;
  std::map<std::vector<std::int32_t>, std::int32_t> local;
  for (std::size_t i = 0; i < n; ++i)
    local.emplace(std::vector<std::int32_t>(rows.begin() + i * width, rows.begin() + (i + 1) * width), 0);
  std::string mine;
  put_u64(mine, local.size());
  for (const auto& [tuple, unused] : local)
    for (std::int32_t v : tuple) put_u64(mine, static_cast<std::uint64_t>(static_cast<std::uint32_t>(v)));
  std::map<std::vector<std::int32_t>, std::int32_t> global;
  for (const std::string& msg : reduce::all_strings(mine, comm)) {
    std::size_t at = 0;
    const std::uint64_t count = get_u64(msg, at, "gather_levels");
    for (std::uint64_t i = 0; i < count; ++i) {
      std::vector<std::int32_t> tuple(width);
      for (auto& v : tuple) v = static_cast<std::int32_t>(static_cast<std::uint32_t>(get_u64(msg, at, "gather_levels")));
      global.emplace(std::move(tuple), 0);
    }
  }
  std::vector<std::string> names;
  for (auto& [tuple, idx] : global) {  // std::map: lexicographic in level order
    idx = static_cast<std::int32_t>(names.size());
    std::string name;
    for (std::size_t k = 0; k < width; ++k)
      name += (k ? ":" : "") + parts[k]->names.at(static_cast<std::size_t>(tuple[k]));
    names.push_back(std::move(name));
  }
  index.resize(n);
  std::vector<std::int32_t> key(width);
  for (std::size_t i = 0; i < n; ++i) {
    std::copy(rows.begin() + i * width, rows.begin() + (i + 1) * width, key.begin());
    index[i] = global.at(key);
  }
  return names;
}

void move_first(ColumnLevels& levels, const std::string& level, const std::string& column,
                const std::string& where) {
  std::vector<std::string>& names = levels.names;
  auto same = [&](const std::string& name) {
    if (name == level) return true;
    double a = 0.0, b = 0.0;
    return levels.numeric && parse_number(name, a) == NumberStatus::ok &&
           parse_number(level, b) == NumberStatus::ok && a == b;
  };
  const auto at = static_cast<std::int32_t>(std::find_if(names.begin(), names.end(), same) - names.begin());
  if (at == static_cast<std::int32_t>(names.size())) {
    std::string list;
    for (std::size_t k = 0; k < names.size() && k < 8; ++k) list += (k ? ", " : "") + names[k];
    if (names.size() > 8) list += ", ... (" + std::to_string(names.size()) + ")";
    throw config_error(
        where, "'" + level + "' is not a level of '" + column + "' in the rows used (its levels: " + list + ")");
  }
  std::rotate(names.begin(), names.begin() + at, names.begin() + at + 1);
  for (std::int32_t& code : levels.remap) code = code == at ? 0 : code < at ? code + 1 : code;
}

}  // namespace bvi::data
