#pragma once
// What counts as a missing cell: empty (or only spaces), `NA`, or NaN in any case (`nan`, `NaN`,
// `NAN`, with a sign too). The same rule for numeric and categorical columns, so an empty level
// name is a missing value, never a level. Infinities are not missing: they are bad numbers.
#include <string_view>

namespace bvi::data {

inline std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

inline bool is_missing_cell(std::string_view field) {
  std::string_view s = trim_spaces(field);
  if (s.empty() || s == "NA") return true;
  if (s.front() == '+' || s.front() == '-') s.remove_prefix(1);
  return s.size() == 3 && (s[0] | 0x20) == 'n' && (s[1] | 0x20) == 'a' && (s[2] | 0x20) == 'n';
}

// How an error message names a missing cell: "empty field" or "missing value 'NA'".
inline std::string missing_phrase(std::string_view field) {
  const std::string_view s = trim_spaces(field);
  return s.empty() ? std::string("empty field") : "missing value '" + std::string(s) + "'";
}

}  // namespace bvi::data
