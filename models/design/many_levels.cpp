#include "models/design/many_levels.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "models/data/text_excerpt.hpp"

namespace bvi::models::design {

void check_many_levels(const Design& design, long rows, const std::vector<std::string>& allowed,
                       const std::string& path) {
  for (const Term& t : design.terms)
    for (int index : t.variables) {
      const Variable& v = design.variables[static_cast<std::size_t>(index)];
      if (!v.categorical || !has_many_levels(v.levels.size(), rows)) continue;
      if (std::find(allowed.begin(), allowed.end(), v.name) != allowed.end()) continue;
      const std::string name = data::quoted_excerpt(v.name);
      std::string what = "column " + name + " has " + std::to_string(v.levels.size()) + " levels in the " +
                         std::to_string(rows) + (rows == 1 ? " row" : " rows") + " used, so the term " +
                         data::quoted_excerpt(t.text) + " would fit nearly one coefficient per row";
      if (v.kind_from_data) what += " (the column is categorical because some of its values are not numbers)";
      what += ": model an ID as a group term, (1 | " + v.name +
              "), or list the column in /data/allow_many_levels" + " if this is intended";
      throw data_error(file_line(path, 1), what);
    }
}

}  // namespace bvi::models::design
