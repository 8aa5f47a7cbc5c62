#pragma once
// The warning for rows left out for missing values (data.missing "drop"): how many, of how many,
// and the first one, so the user can look.
#include <string>

#include "models/data/dataset.hpp"

namespace bvi::cli {

// "dropped 3 of 1000 rows ... (the first at FILE:LINE: column 'x': empty field)", or "" when
// none was dropped.
template <class T>
std::string dropped_rows_note(const data::Dataset<T>& d) {
  if (d.dropped_rows == 0) return "";
  return "dropped " + std::to_string(d.dropped_rows) + " of " + std::to_string(d.file_rows) +
         " rows with missing values (empty, NA or NaN) in the columns the model uses (the first at " +
         d.path + ":" + std::to_string(d.first_dropped_line) + ": " + d.first_dropped_what + ")";
}

// Logs it as a warning on rank 0 (`root`).
template <class T>
void warn_dropped_rows(const data::Dataset<T>& d, bool root);

}  // namespace bvi::cli
