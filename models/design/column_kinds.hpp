#pragma once
// Whether a column holds numbers or categories, decided the same way on every rank from the whole
// file. A column listed in data.categorical (or grouping) is categorical; any other column's kind
// comes from all of its present values (missing_cell.hpp), counted while the table is read
// (CellTally) and summed over the ranks:
//   - every value a number: numeric;
//   - mostly numbers (more than 90 % of them, or all but at most kFewOthers and more numbers than
//     not): a data error at the first value that is not a number, naming up to three such cells
//     and saying what to do. A spreadsheet's `#DIV/0!`, a `1,234`, a `-` placeholder must never
//     turn a numeric column into one indicator column per distinct value;
//   - else (text, or numbers mixed with as many labels): categorical.
// The table is read before the kinds are known, with each column's first present value as the
// guess (first_value_is_text, usually right: it only needs the first record); a guess the whole
// column contradicts makes the caller read the table again with the settled kinds.
#include <string>
#include <vector>

#include "models/data/cell_tally.hpp"
#include "models/data/csv_reader.hpp"

namespace bvi::models::design {

// For each of `columns` (header indexes): true when its first present value is text. A column
// with no present value at all counts as numeric. Requires reader.scan().
std::vector<bool> first_value_is_text(const data::CsvReader& reader, const std::vector<int>& columns);

// Cells that are no number which a numeric column may not hold whatever its length.
inline constexpr long kFewOthers = 3;

enum class ColumnKind { numeric, categorical, mostly_numbers };

// The kind of a column whose kind is not declared, from the tally of all its present cells.
ColumnKind judge_column(const data::CellTally& tally);

// The kind of column `name` of `path` (true: categorical); a data error at the first cell that
// is no number when it is mostly numbers.
bool settle_column_kind(const data::CellTally& tally, const std::string& name, const std::string& path);

}  // namespace bvi::models::design
