#pragma once
// The rows a model uses, read from a CSV file: numeric columns as numbers of type T, categorical
// columns as labels (numbered per process, LevelDictionary), the response and the columns some
// likelihoods read besides as doubles, each checked; rows with a missing cell (missing_cell.hpp)
// in any of these columns are left out and counted, so the caller can drop them or report them.
// Columns the model does not use are split but never parsed.
//
// A column whose kind is not settled yet (not declared categorical by the config: its kind comes
// from its values, models/design/column_kinds.hpp) is tallied: each present cell counted as a
// number or not, with the first few that are not (CellTally). A tallied numeric column's cell that
// is no number is then counted, not an error, and its row keeps a 0 there: the caller must judge
// the tallies before using the numbers. Every text cell of a used column, and every cell that does
// not read as a number, is checked for bytes no text CSV holds (text_bytes.hpp): a data error at
// its line.
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "models/data/cell_tally.hpp"
#include "models/data/csv_reader.hpp"
#include "models/data/level_dictionary.hpp"
#include "models/data/row_matrix.hpp"
#include "models/data/row_parser.hpp"

namespace bvi::data {

struct TableSpec {
  std::vector<int> numeric;  // header indexes of the numeric columns
  std::vector<int> text;     // header indexes of the categorical columns
  int response = -1;         // -1: none
  ResponseCheck check;       // judges each response value
  // The response as labels (/data/levels): each cell, its spaces trimmed, must be one of these and
  // is read as its position + first_label_value (`check` is not applied); a cell that is not is a
  // data error. Empty: the response is a number.
  std::vector<std::string> response_labels;
  double first_label_value = 1.0;  // what response_labels[0] reads as (the binary likelihoods: 0)
  std::vector<ExtraColumn> extras;
  RowCheck row_check;         // the response against its row's extras
  bool keep_records = false;  // fill Table::records and Table::lines
  // Per numeric / text column (empty: none): tally its cells (see above).
  std::vector<bool> tally_numeric, tally_text;
  // Said after "non-numeric value 'abc'" in a numeric column that is not tallied.
  std::string numeric_hint = "(a numeric column; list it in /data/categorical if it holds categories)";
  // Said after "non-numeric value 'abc'" in the response column (empty: nothing).
  std::string response_hint;
};

template <class T>
struct Table {
  RowMatrix<T> numeric;                          // kept rows x numeric columns
  Eigen::VectorXd y;                             // kept rows (empty without a response)
  RowMatrix<double> extras;                      // kept rows x extras
  std::vector<std::vector<std::int32_t>> codes;  // per categorical column: a local code per kept row
  std::vector<LevelDictionary> levels;           // per categorical column: the labels of the codes
  // Rows kept per chunk of `chunk_records` file records, for the chunks [begin, end) covers.
  std::vector<Eigen::Index> kept_per_chunk;
  std::vector<Eigen::Index> records;   // with keep_records: each kept row's record index (0-based)
  std::vector<long> lines;             // with keep_records: each kept row's physical line
  Eigen::Index kept = 0, missing = 0;  // rows kept, rows left out for a missing cell
  long first_missing_line = 0;         // the first of those (physical line), 0 when none
  std::string first_missing_what;      // "column 'x': empty field"
  // Per numeric / text column: its cells in every record read (kept or not), when tallied.
  std::vector<CellTally> numeric_tallies, text_tallies;
};

// Reads records [begin, end) of `reader` (scanned). `begin` must start a chunk of
// `chunk_records` records. A value that is present but bad (not a number, infinite, a response
// the check refuses, a ragged row) is a data error at FILE:LINE, as in RowParser.
template <class T>
Table<T> read_table(const CsvReader& reader, const TableSpec& spec, Eigen::Index begin, Eigen::Index end,
                    Eigen::Index chunk_records);

}  // namespace bvi::data
