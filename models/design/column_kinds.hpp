#pragma once
// Whether a column holds numbers or categories, decided the same way on every rank from the file
// alone: by its first value that is not missing (missing_cell.hpp), in file order. Text there
// makes the column categorical; a number makes it numeric, and a later value that is no number is
// then a data error at its line, which suggests data.categorical. Reads only as far as needed:
// usually the first record.
#include <vector>

#include "models/data/csv_reader.hpp"

namespace bvi::models::design {

// For each of `columns` (header indexes): true when its first present value is text. A column
// with no present value at all counts as numeric. Requires reader.scan().
std::vector<bool> first_value_is_text(const data::CsvReader& reader, const std::vector<int>& columns);

}  // namespace bvi::models::design
