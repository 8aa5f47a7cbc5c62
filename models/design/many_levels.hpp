#pragma once
// A population-level term of a categorical column whose levels are nearly all distinct (an ID
// column, or numbers read as text) gets nearly one coefficient per row: a model nobody means to
// write, which fits slowly and says nothing. Refused unless the config says it is intended
// (data.allow_many_levels); a group term (1 | column) is what such a column usually wants.
#include <string>
#include <vector>

#include "models/design/design.hpp"

namespace bvi::models::design {

// "Nearly one level per row": at least kManyLevels levels and at least half as many levels as rows.
inline constexpr std::size_t kManyLevels = 10;

inline bool has_many_levels(std::size_t levels, long rows) {
  return levels >= kManyLevels && 2 * static_cast<long>(levels) >= rows;
}

// A data error at FILE:1 (`path`) for the first population-level term with a categorical variable
// that has many levels in `rows` rows and is not listed in `allowed`. Needs the levels set.
void check_many_levels(const Design& design, long rows, const std::vector<std::string>& allowed,
                       const std::string& path);

}  // namespace bvi::models::design
